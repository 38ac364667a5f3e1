// The floor for the single-trace figures (issue 11): read a file and parse it into a RapidJSON DOM,
// nothing else. Not built by CMake: g++ -O2 -std=c++20 tests/bench/parse_only.cpp -o parse_only
#include <rapidjson/document.h>

#include <cstdio>
#include <fstream>
#include <sstream>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: parse_only FILE.json\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    rapidjson::Document doc;
    doc.Parse(text.c_str(), text.size());
    if (doc.HasParseError()) {
        std::fprintf(stderr, "%s: parse error at byte %zu\n", argv[1], doc.GetErrorOffset());
        return 1;
    }
    std::size_t spans = 0;
    if (doc.HasMember("data") && doc["data"].IsArray())
        for (const auto& t : doc["data"].GetArray())
            if (t.HasMember("spans") && t["spans"].IsArray()) spans += t["spans"].Size();
    std::printf("%zu spans\n", spans);
    return 0;
}
