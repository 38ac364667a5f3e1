// Host-activity files: CSV and JSON lines read to the same records, the request marker kept, and every
// malformed line refused with its file and line.
#include <gtest/gtest.h>

#include "TestUtil.h"
#include "tracelight/import/HostActivityFile.h"

using namespace tracelight;

TEST(HostActivityFile, ReadsCsvAndJsonLinesAlike) {
    test::ScratchDir dir;
    const std::string csv = dir.write("a.csv",
                                      "host,start_us,end_us,what,request,span,cpu\n"
                                      "db-1,1700000000000000.5,1700000000002000,compaction,,,3\n"
                                      "\n"
                                      "web-1,1700000000000100,1700000000000101,syscall:read,r42,s-7,0\n");
    const std::string jsonl = dir.write("a.jsonl",
                                        "{\"host\": \"db-1\", \"start_us\": 1700000000000000.5, \"end_us\": 1700000000002000, \"what\": \"compaction\"}\n"
                                        "{\"host\": \"web-1\", \"start_ns\": \"1700000000000100000\", \"duration_ns\": 1000, \"what\": \"syscall:read\", "
                                        "\"trace_id\": \"r42\", \"span_id\": \"s-7\", \"pid\": 12}\n");
    for (const std::string& path : {csv, jsonl}) {
        const auto read = readHostActivityFile(path);
        ASSERT_TRUE(read) << read.message();
        ASSERT_EQ(read->size(), 2u) << path;
        const auto& a = read.value()[0];
        EXPECT_EQ(a.host, "db-1");
        EXPECT_EQ(a.startNs, 1700000000000000500);
        EXPECT_EQ(a.endNs, 1700000000002000000);
        EXPECT_EQ(a.what, "compaction");
        EXPECT_TRUE(a.request.empty());
        const auto& b = read.value()[1];
        EXPECT_EQ(b.startNs, 1700000000000100000);
        EXPECT_EQ(b.endNs, 1700000000000101000);
        EXPECT_EQ(b.request, "r42");
        EXPECT_EQ(b.span, "s-7");
    }
}

TEST(HostActivityFile, AMalformedLineIsNamedByFileAndLine) {
    test::ScratchDir dir;
    const struct {
        const char* name;
        const char* content;
        const char* error;
    } cases[] = {
        {"ends-early.csv", "host,start_us,end_us,what\nweb-1,10,20,gc\nweb-1,30,20,gc\n", "ends-early.csv:3: ends before it starts"},
        {"not-a-number.csv", "host,start_us,end_us,what\nweb-1,ten,20,gc\n", "not-a-number.csv:2: start_us 'ten' is not a number"},
        {"no-host.csv", "host,start_us,end_us,what\n,10,20,gc\n", "no-host.csv:2: no host"},
        {"fields.csv", "host,start_us,end_us,what\nweb-1,10,20\n", "fields.csv:2: 3 fields, the header has 4"},
        {"header.csv", "host,when,what\nweb-1,10,gc\n", "header.csv:1: the header needs host, what"},
        {"no-end.csv", "host,start_us,what\nweb-1,10,gc\n", "no-end.csv:2: no end"},
        {"span-alone.csv", "host,start_us,end_us,what,span\nweb-1,10,20,gc,s1\n", "span-alone.csv:2: a span without its request"},
        {"broken.jsonl", "{\"host\": \"web-1\", \"start_us\": 1, \"end_us\": 2, \"what\": \"gc\"}\n{\"host\": \"web-1\", \n", "broken.jsonl:2: not JSON"},
        {"object.jsonl", "{\"host\": \"web-1\", \"start_us\": 1, \"end_us\": 2, \"what\": {\"x\": 1}}\n", "object.jsonl:1: what is neither"},
    };
    for (const auto& c : cases) {
        const auto read = readHostActivityFile(dir.write(c.name, c.content));
        ASSERT_FALSE(read) << c.name;
        EXPECT_NE(read.message().find(c.error), std::string::npos) << read.message();
        EXPECT_EQ(read.message().find('\n'), std::string::npos) << read.message();
    }
    const auto missing = readHostActivityFile(dir.file("missing.csv"));
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.message().find("missing.csv"), std::string::npos);
}
