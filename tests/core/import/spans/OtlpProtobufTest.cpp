// OTLP protobuf trace files (a whole TracesData, or the collector file exporter's length-prefixed messages):
// every real OTLP JSON file, written as protobuf by the protocol's own classes, imports as the same spans.
#include <gtest/gtest.h>

#include <google/protobuf/util/json_util.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "TestUtil.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

const std::string kOtlp = std::string(TRACELIGHT_SHARED_DIR) + "/realdata/otlp/";

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string base64OfHex(const std::string& hex) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size()) v |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size()) v |= std::uint8_t(bytes[i + 2]);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
    }
    return out;
}

// One OTLP JSON document as the protocol's binary message. OTLP JSON writes ids in hex where protobuf's JSON
// mapping reads base64: they are rewritten first.
std::string toProtobuf(const std::string& json) {
    static const std::regex id(R"re("(traceId|spanId|parentSpanId)"\s*:\s*"([0-9a-fA-F]*)")re");
    std::string rewritten;
    auto out = std::back_inserter(rewritten);
    auto last = json.cbegin();
    for (std::sregex_iterator it(json.begin(), json.end(), id), end; it != end; ++it) {
        out = std::copy(last, (*it)[0].first, out);
        rewritten += "\"" + (*it)[1].str() + "\":\"" + base64OfHex((*it)[2].str()) + "\"";
        last = (*it)[0].second;
    }
    std::copy(last, json.cend(), out);
    opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest request;
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    const auto status = google::protobuf::util::JsonStringToMessage(rewritten, &request, options);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return request.SerializeAsString();
}

std::string framed(const std::vector<std::string>& messages) {
    std::string out;
    for (const auto& m : messages) {
        const auto n = static_cast<std::uint32_t>(m.size());
        out += {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n)};
        out += m;
    }
    return out;
}

// Every span of every request, as text, in request name order.
std::vector<std::string> spansOf(const std::string& input, const test::ScratchDir& dir, const std::string& name) {
    auto store = TraceStore::open(dir.file(name + ".tldb"), TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    ImportOptions options;
    options.inputs = {input};
    auto summary = importTraces(*store.value(), options);
    EXPECT_TRUE(summary) << input << ": " << summary.message();
    std::vector<std::string> out;
    for (const auto& name : test::StoreAccess::rows(*store.value(), "SELECT name FROM requests ORDER BY name")) {
        for (const SpanRecord& s : requestSpans(*store.value(), *requestByName(*store.value(), name))) {
            std::string line = name + " " + s.spanId + " parent " + std::to_string(s.parent) + " " + s.service + ":" + s.operation + "@" +
                               s.host + " " + s.kind + " " + std::to_string(s.startNs) + "-" + std::to_string(s.endNs);
            for (const auto& [k, v] : s.attributes) line += " " + k + "=" + v;
            for (const auto& [k, v] : s.processAttributes) line += " process " + k + "=" + v;
            for (const auto& e : s.events) line += " event " + e.name + "@" + std::to_string(e.tsNs);
            for (const auto& l : s.links) line += " link " + l;
            out.push_back(std::move(line));
        }
    }
    return out;
}

} // namespace

TEST(OtlpProtobuf, EveryRealOtlpFileImportsAsItsJson) {
    if (!std::filesystem::is_directory(kOtlp)) GTEST_SKIP() << "no " << kOtlp;
    test::ScratchDir dir;
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kOtlp)) {
        const std::string path = entry.path().string(), text = readFile(path);
        if (text.find("\"resourceSpans\"") == std::string::npos) continue;  // the Jaeger side of the conversion pairs
        // One document, or one per line (the collector's JSON exporter).
        std::vector<std::string> messages;
        if (path.ends_with(".txt")) {
            std::istringstream lines(text);
            for (std::string line; std::getline(lines, line);)
                if (line.find('{') != std::string::npos) messages.push_back(toProtobuf(line));
        } else {
            messages.push_back(toProtobuf(text));
        }
        std::string whole;
        for (const auto& m : messages) whole += m;  // concatenated messages merge their repeated fields
        const std::string name = entry.path().filename().string();
        const auto expected = spansOf(path, dir, name + ".json");
        ASSERT_FALSE(expected.empty()) << name;
        EXPECT_EQ(spansOf(dir.write(name + ".pb", whole), dir, name + ".pb"), expected) << name << " as one TracesData";
        EXPECT_EQ(spansOf(dir.write(name + ".frames", framed(messages)), dir, name + ".frames"), expected)
            << name << " as the file exporter's frames";
        ++files;
    }
    EXPECT_GE(files, 4);
}

TEST(OtlpProtobuf, TruncatedAndMalformedFilesAreOneErrorWithTheirByte) {
    if (!std::filesystem::is_directory(kOtlp)) GTEST_SKIP() << "no " << kOtlp;
    test::ScratchDir dir;
    const std::string message = toProtobuf(readFile(kOtlp + "otlp2jaeger-in.json"));
    auto importError = [&](const std::string& name, const std::string& bytes) {
        auto store = TraceStore::open(dir.file(name + ".tldb"), TraceStore::Mode::Create);
        ImportOptions options;
        options.inputs = {dir.write(name, bytes)};
        options.format = InputFormat::OtlpProtobuf;
        auto summary = importTraces(*store.value(), options);
        EXPECT_FALSE(summary) << name;
        return summary ? std::string() : summary.message();
    };
    const std::string truncated = importError("cut.pb", message.substr(0, message.size() - 5));
    EXPECT_NE(truncated.find("cut.pb: byte 0: truncated"), std::string::npos) << truncated;
    const std::string frameCut = importError("cut.frames", framed({message}).substr(0, 3));
    EXPECT_NE(frameCut.find("cut.frames: byte 0: truncated (a message's 4-byte length)"), std::string::npos) << frameCut;
    std::string garbled = message;
    garbled[2] = '\xFF';  // inside the first ResourceSpans: not a valid message
    const std::string malformed = importError("bad.pb", garbled);
    EXPECT_NE(malformed.find("bad.pb: byte 0: "), std::string::npos) << malformed;
    // A length past the limit is refused before anything is read.
    const std::string huge = importError("huge.pb", std::string("\x0A\x80\x80\x80\x40", 5));
    EXPECT_NE(huge.find("longer than the limit of 64 MiB"), std::string::npos) << huge;
}
