#include <gtest/gtest.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "TestUtil.h"
#include "tracelight/base/Json.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;

namespace {

struct Fixture {
    test::ScratchDir dir;
    std::unique_ptr<TraceStore> store;

    Fixture() {
        auto s = TraceStore::open(dir.file("t.tldb"), TraceStore::Mode::Create);
        EXPECT_TRUE(s) << s.message();
        store = std::move(s.value());
    }
    Result<ImportSummary> import(std::vector<std::string> files, InputFormat format = InputFormat::Auto,
                                 std::string period = "p") {
        ImportOptions options;
        options.inputs = std::move(files);
        options.format = format;
        options.period = std::move(period);
        return importTraces(*store, options);
    }
    // Rows of a query, each row's columns joined by '|'.
    std::vector<std::string> rows(const std::string& sql) const { return test::StoreAccess::rows(*store, sql); }
    // Events of a request as task:event@host in task order.
    std::vector<std::string> events(const std::string& request) const {
        return rows("SELECT t.text || ':' || e.text || '@' || h.text FROM events ev JOIN requests r ON r.id=ev.request_id "
                    "JOIN label_text t ON t.id=ev.task_id JOIN label_text e ON e.id=ev.event_id JOIN labels h ON h.id=ev.host_id "
                    "WHERE r.name='" + request + "' ORDER BY ev.task_id, ev.ord");
    }
};

const char* kTwoRequests =
    "request,host,task,event,ts_us,browser\n"
    "r1,client,main,START,1000,Chrome\n"
    "r1,server,main,RECV,5000000,\n"       // server clock is seconds off: never compared to the client's
    "r1,server,main,SEND,5000300,\n"
    "r1,client,main,DONE,1500,\n"
    "r2,client,main,START,2000,Firefox\n"
    "r2,client,main,DONE,2900,\n";

} // namespace

TEST(EventImport, ImportsCsvWithCountsAttributesAndOriginLatency) {
    Fixture f;
    auto summary = f.import({f.dir.write("a.csv", kTwoRequests)});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->requests, 2);
    EXPECT_EQ(summary->events, 6);
    auto info = f.store->info();
    ASSERT_TRUE(info);
    EXPECT_EQ(info->requests, 2);
    EXPECT_EQ(info->events, 6);
    EXPECT_EQ(info->segments, 4);  // 3 in r1's task, 1 in r2's
    EXPECT_EQ(info->hosts, 2);
    ASSERT_EQ(info->periods.size(), 1u);
    EXPECT_EQ(info->periods[0].name, "p");
    EXPECT_EQ(info->periods[0].requests, 2);
    EXPECT_EQ(f.events("r1"), (std::vector<std::string>{"main:START@client", "main:RECV@server", "main:SEND@server",
                                                        "main:DONE@client"}));
    // Latency before skew correction: the origin host's (client's) own clock only.
    EXPECT_EQ(f.rows("SELECT name, start_local_ns, latency_local_ns, host_count FROM requests ORDER BY id"),
              (std::vector<std::string>{"r1|1000000|500000|2", "r2|2000000|900000|1"}));
    EXPECT_EQ(f.rows("SELECT r.name, k.text, v.text FROM request_attrs a JOIN requests r ON r.id=a.request_id "
                     "JOIN labels k ON k.id=a.key_id JOIN labels v ON v.id=a.value_id ORDER BY r.id"),
              (std::vector<std::string>{"r1|browser|Chrome", "r2|browser|Firefox"}));
}

TEST(EventImport, SeqOrdersEventsWhateverTheRowOrder) {
    Fixture f;
    // Rows merged by (skewed) local time: the server's rows come first, seq restores task order.
    const auto path = f.dir.write("seq.csv",
                                  "request,host,task,event,ts_us,seq\n"
                                  "r1,server,main,RECV,100,2\n"
                                  "r1,server,main,SEND,200,3\n"
                                  "r1,client,main,START,9000,1\n"
                                  "r1,client,main,DONE,9500,4\n");
    ASSERT_TRUE(f.import({path}));
    EXPECT_EQ(f.events("r1"), (std::vector<std::string>{"main:START@client", "main:RECV@server", "main:SEND@server",
                                                        "main:DONE@client"}));
}

TEST(EventImport, RepeatedTaskEventIsNumberedNotAnError) {
    Fixture f;
    const auto path = f.dir.write("loop.csv",
                                  "request,host,task,event,ts_us\n"
                                  "r1,h,t,LOCK_ACQUIRE,1\n"
                                  "r1,h,t,LOCK_RELEASE,2\n"
                                  "r1,h,t,LOCK_ACQUIRE,3\n"
                                  "r1,h,t,LOCK_RELEASE,4\n"
                                  "r1,h,t,LOCK_ACQUIRE,5\n"
                                  "r1,h,u,LOCK_ACQUIRE,6\n");  // another task: its own first occurrence
    auto summary = f.import({path});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->renamedEvents, 3);
    EXPECT_EQ(f.events("r1"), (std::vector<std::string>{"t:LOCK_ACQUIRE@h", "t:LOCK_RELEASE@h", "t:LOCK_ACQUIRE#2@h",
                                                        "t:LOCK_RELEASE#2@h", "t:LOCK_ACQUIRE#3@h", "u:LOCK_ACQUIRE@h"}));
}

TEST(EventImport, RequestsSpanningSeveralFilesAreMerged) {
    Fixture f;
    const auto client = f.dir.write("client.csv", "request,host,task,event,ts_us,seq\nr1,c,main,START,10,1\nr1,c,main,DONE,90,4\n");
    const auto server = f.dir.write("server.csv", "ts_us,event,task,host,request,seq\n5000,RECV,main,s,r1,2\n5040,SEND,main,s,r1,3\n");
    auto summary = f.import({client, server});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->requests, 1);
    EXPECT_EQ(f.events("r1"),
              (std::vector<std::string>{"main:START@c", "main:RECV@s", "main:SEND@s", "main:DONE@c"}));
}

TEST(EventImport, DefaultPeriodIsNamedAfterTheFirstInput) {
    Fixture f;
    ImportOptions options;
    options.inputs = {f.dir.write("monday.csv", kTwoRequests)};
    auto summary = importTraces(*f.store, options);
    ASSERT_TRUE(summary);
    EXPECT_EQ(summary->period, "monday");
}

TEST(EventImport, JsonLinesWithAttributes) {
    Fixture f;
    const auto path = f.dir.write(
        "a.jsonl",
        R"({"request":"r1","host":"c","task":"main","event":"START","ts_us":10.5,"attrs":{"browser":"Chrome","bytes":1200}})"
        "\n\n"
        R"({"request":"r1","host":"c","task":"main","event":"DONE","ts_us":"20.5","seq":null,"region":"eu"})"
        "\n");
    auto summary = f.import({path});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->events, 2);
    EXPECT_EQ(f.rows("SELECT k.text, v.text FROM request_attrs a JOIN labels k ON k.id=a.key_id JOIN labels v ON "
                     "v.id=a.value_id ORDER BY k.text"),
              (std::vector<std::string>{"browser|Chrome", "bytes|1200", "region|eu"}));
    EXPECT_EQ(f.rows("SELECT latency_local_ns FROM requests"), (std::vector<std::string>{"10000"}));
}

TEST(EventImport, ConflictingAttributeValueStaysWithItsEvent) {
    Fixture f;
    const auto path = f.dir.write("a.csv",
                                  "request,host,task,event,ts_us,status\n"
                                  "r1,c,main,A,1,ok\nr1,c,main,B,2,ok\nr1,c,main,C,3,retry\n");
    ASSERT_TRUE(f.import({path}));
    EXPECT_EQ(f.rows("SELECT v.text FROM request_attrs a JOIN labels v ON v.id=a.value_id"),
              (std::vector<std::string>{"ok"}));
    EXPECT_EQ(f.rows("SELECT e.ord, v.text FROM event_attrs e JOIN labels v ON v.id=e.value_id"),
              (std::vector<std::string>{"2|retry"}));
}

TEST(EventImport, DetectsFormatFromContentNotName) {
    Fixture f;
    EXPECT_EQ(detectInputFormat(f.dir.write("x.json", kTwoRequests)).value(), InputFormat::EventsCsv);
    EXPECT_EQ(detectInputFormat(f.dir.write("x.csv", R"({"request":"r","host":"h","task":"t","event":"e","ts_us":1})"))
                  .value(),
              InputFormat::EventsJsonl);
    auto garbage = detectInputFormat(f.dir.write("g.csv", "name,age\nbob,3\n"));
    ASSERT_FALSE(garbage);
    EXPECT_NE(garbage.message().find("g.csv: byte 0"), std::string::npos) << garbage.message();
}

// ---- bad input: one clear error naming file and line, and the database exactly as it was -------

class BadInput : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(f.import({f.dir.write("good.csv", kTwoRequests)}, InputFormat::Auto, "good")); }

    // Imports content, expects failure mentioning every fragment, and checks nothing changed.
    void expectRejected(const std::string& name, const std::string& content, std::vector<std::string> fragments,
                        InputFormat format = InputFormat::Auto) {
        const auto before = snapshot();
        auto result = f.import({f.dir.write(name, content)}, format, "bad");
        ASSERT_FALSE(result) << name << " was accepted";
        for (const auto& fragment : fragments)
            EXPECT_NE(result.message().find(fragment), std::string::npos)
                << "message '" << result.message() << "' lacks '" << fragment << "'";
        EXPECT_EQ(result.message().find('\n'), std::string::npos) << "one line";
        EXPECT_EQ(snapshot(), before) << "the failed import changed the database";
    }
    std::vector<std::string> snapshot() {
        std::vector<std::string> all;
        for (const char* table : {"labels", "periods", "requests", "request_attrs", "event_attrs", "label_roles", "imports"})
            for (auto& r : f.rows(std::string("SELECT * FROM ") + table)) all.push_back(std::string(table) + ":" + r);
        for (auto& r : f.rows("SELECT * FROM events")) all.push_back("events:" + r);
        return all;
    }
    Fixture f;
};

TEST_F(BadInput, MissingRequiredColumn) {
    expectRejected("nots.csv", "request,host,task,event\nr9,h,t,e\n", {"nots.csv:1:", "missing required column 'ts_us'"});
}

TEST_F(BadInput, NonNumericTimestamp) {
    expectRejected("ts.csv", "request,host,task,event,ts_us\nr9,h,t,A,1\nr9,h,t,B,soon\n", {"ts.csv:3:", "'soon'"});
}

TEST_F(BadInput, NotANumberOrInfiniteTimestamp) {
    expectRejected("nan.csv", "request,host,task,event,ts_us\nr9,h,t,A,nan\n", {"nan.csv:2:"});
    expectRejected("inf.jsonl", R"({"request":"r9","host":"h","task":"t","event":"e","ts_us":1e999})", {"inf.jsonl:1:"});
}

TEST_F(BadInput, AbsurdTimestamp) {
    expectRejected("far.csv", "request,host,task,event,ts_us\nr9,h,t,A,1e30\n", {"far.csv:2:", "absurd timestamp"});
}

TEST_F(BadInput, EmptyFile) { expectRejected("empty.csv", "", {"empty.csv", "empty file"}, InputFormat::EventsCsv); }

TEST_F(BadInput, HeaderOnly) {
    expectRejected("header.csv", "request,host,task,event,ts_us\n", {"header.csv", "no events"});
}

TEST_F(BadInput, WrongFieldCount) {
    expectRejected("short.csv", "request,host,task,event,ts_us\nr9,h,t,A,1\nr9,h,t,B\n", {"short.csv:3:", "expected 5 fields"});
}

TEST_F(BadInput, EmptyRequiredValue) {
    expectRejected("blank.csv", "request,host,task,event,ts_us\nr9,,t,A,1\n", {"blank.csv:2:", "empty host"});
}

TEST_F(BadInput, DuplicateSeqWithinTask) {
    expectRejected("dup.csv", "request,host,task,event,ts_us,seq\nr9,h,t,A,1,1\nr9,h,t,B,2,1\n",
                   {"dup.csv:3:", "seq 1 appears twice"});
}

// Events are stored in batches while each task's positions rise; a repeated seq must still be caught at
// its own line, wherever it falls against the batches: behind a batch still waiting, after an
// out-of-order row, between interleaved tasks, and in a request the input comes back to.
TEST_F(BadInput, DuplicateSeqIsNamedAtItsOwnLineWhereverItFalls) {
    const std::string header = "request,host,task,event,ts_us,seq\n";
    auto row = [](const std::string& request, const std::string& task, int seq) {
        return request + ",h," + task + ",E" + std::to_string(seq) + "," + std::to_string(100 + seq) + "," + std::to_string(seq) + "\n";
    };
    std::string rising;  // 300 rows of t: two full batches of 128 and a part (lines 2..301)
    for (int seq = 1; seq <= 300; ++seq) rising += row("r9", "t", seq);
    expectRejected("behind.csv", header + rising + row("r9", "t", 40), {"behind.csv:302:", "seq 40 appears twice"});
    expectRejected("waiting.csv", header + rising + row("r9", "t", 299), {"waiting.csv:302:", "seq 299 appears twice"});
    expectRejected("after.csv", header + rising + row("r9", "t", 305) + row("r9", "t", 300), {"after.csv:303:", "seq 300 appears twice"});
    std::string interleaved;
    for (int seq = 1; seq <= 150; ++seq) interleaved += row("r9", "t1", seq) + row("r9", "t2", seq);
    expectRejected("between.csv", header + interleaved + row("r9", "t1", 3), {"between.csv:302:", "seq 3 appears twice"});
    // The same seq in another task or another request is no repeat.
    const auto before = snapshot();
    auto fine = f.import({f.dir.write("fine.csv", header + rising + row("r9", "u", 40) + row("r10", "t", 40))}, InputFormat::Auto, "fine");
    ASSERT_TRUE(fine) << fine.message();
    EXPECT_EQ(fine->events, 302);
    EXPECT_NE(snapshot(), before);
}

// Into a database without requests the rows are written on a thread of their own while the input is read
// (SqlWorker.h): a repeated seq is still named at its own line, and nothing of the import stays.
TEST(EventImport, DuplicateSeqIsNamedAtItsLineWhileRowsAreWrittenInTheBackground) {
    const std::string header = "request,host,task,event,ts_us,seq\n";
    auto row = [](const std::string& request, const std::string& task, int seq) {
        return request + ",h," + task + ",E" + std::to_string(seq) + "," + std::to_string(100 + seq) + "," + std::to_string(seq) + "\n";
    };
    std::string earlier;  // other requests first, so that many batches are on their way when the repeat comes
    for (int r = 0; r < 300; ++r)
        for (int seq = 1; seq <= 5; ++seq) earlier += row("a" + std::to_string(r), "t", seq);
    std::string rising;  // two full batches of 128 and a part
    for (int seq = 1; seq <= 300; ++seq) rising += row("r9", "t", seq);
    const int firstRisingLine = 2 + 1500;
    for (auto [name, content, line, repeat] :
         {std::tuple{"behind.csv", earlier + rising + row("r9", "t", 40), firstRisingLine + 300, 40},
          std::tuple{"waiting.csv", earlier + rising + row("r9", "t", 299), firstRisingLine + 300, 299},
          std::tuple{"after.csv", earlier + rising + row("r9", "t", 305) + row("r9", "t", 300), firstRisingLine + 301, 300}}) {
        Fixture f;
        auto result = f.import({f.dir.write(name, header + content)});
        ASSERT_FALSE(result) << name;
        const std::string where = std::string(name) + ":" + std::to_string(line) + ":";
        EXPECT_NE(result.message().find(where), std::string::npos) << result.message() << " lacks " << where;
        EXPECT_NE(result.message().find("seq " + std::to_string(repeat) + " appears twice"), std::string::npos) << result.message();
        for (const char* table : {"requests", "events", "labels", "periods"})
            EXPECT_EQ(f.rows(std::string("SELECT COUNT(*) FROM ") + table), (std::vector<std::string>{"0"})) << name << ": " << table;
    }
}

// A write that fails on the writing thread (here a trigger standing in for a full disk) fails the import
// with SQLite's reason, stores nothing of it, and leaves the database as usable as before.
TEST(EventImport, AWriteThatFailsInTheBackgroundFailsTheImportAndStoresNothing) {
    std::string csv = "request,host,task,event,ts_us,seq\n";
    for (int r = 0; r < 200; ++r)
        for (int seq = 1; seq <= 10; ++seq)
            csv += "q" + std::to_string(r) + ",h,t,E" + std::to_string(seq) + "," + std::to_string(seq) + "," + std::to_string(seq) + "\n";
    for (auto [table, when, what] : {std::tuple{"events", "NEW.request_id = 150", "cannot store event"},
                                     std::tuple{"requests", "NEW.name = 'q180'", "cannot store request"}}) {
        Fixture f;
        const std::string trigger = std::string("CREATE TRIGGER full AFTER INSERT ON ") + table + " WHEN " + when +
                                    " BEGIN SELECT RAISE(ABORT, 'simulated full disk'); END";
        ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*f.store), trigger.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        auto failed = f.import({f.dir.write("full.csv", csv)});
        ASSERT_FALSE(failed) << table;
        EXPECT_NE(failed.message().find(what), std::string::npos) << failed.message();
        EXPECT_NE(failed.message().find("simulated full disk"), std::string::npos) << failed.message();
        EXPECT_EQ(failed.message().find('\n'), std::string::npos) << "one line";
        for (const char* t : {"requests", "events", "labels"})
            EXPECT_EQ(f.rows(std::string("SELECT COUNT(*) FROM ") + t), (std::vector<std::string>{"0"})) << table << ": " << t;
        EXPECT_EQ(f.rows("PRAGMA journal_mode"), (std::vector<std::string>{"wal"})) << table;
        ASSERT_EQ(sqlite3_exec(test::StoreAccess::db(*f.store), "DROP TRIGGER full", nullptr, nullptr, nullptr), SQLITE_OK);
        auto again = f.import({f.dir.write("again.csv", csv)});
        ASSERT_TRUE(again) << again.message();
        EXPECT_EQ(again->events, 2000);
        EXPECT_EQ(f.rows("SELECT COUNT(*), SUM(event_count) FROM requests"), (std::vector<std::string>{"200|2000"}));
    }
}

// An import into a store without requests writes its pages straight into the file (no WAL to copy them
// from again); one into a store that holds requests stays in WAL mode, so readers keep their snapshot.
// Either way the store is in WAL mode afterwards.
TEST(EventImport, AnImportIntoANewStoreWritesItsPagesOnceAndLeavesItInWalMode) {
    Fixture f;
    const std::string path = f.store->path();
    for (int round = 0; round < 2; ++round) {
        std::string csv = "request,host,task,event,ts_us,seq\n";
        for (int r = 0; r < 200; ++r)
            for (int seq = 1; seq <= 10; ++seq)
                csv += "q" + std::to_string(round) + "-" + std::to_string(r) + ",h,t,E" + std::to_string(seq) + "," +
                       std::to_string(seq) + "," + std::to_string(seq) + "\n";
        int reports = 0, withWal = 0;
        const ProgressSink progress = [&](double, std::string_view) {
            ++reports;
            withWal += std::filesystem::exists(path + "-wal");
        };
        ImportOptions options;
        options.inputs = {f.dir.write("in" + std::to_string(round) + ".csv", csv)};
        auto summary = importTraces(*f.store, options, &progress);
        ASSERT_TRUE(summary) << summary.message();
        ASSERT_GT(reports, 0);
        if (round == 0) EXPECT_EQ(withWal, 0) << "the new store's pages went to a WAL";
        else EXPECT_EQ(withWal, reports) << "a store with requests left WAL mode";
        EXPECT_EQ(f.rows("PRAGMA journal_mode"), (std::vector<std::string>{"wal"}));
        EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
    }
    EXPECT_EQ(f.rows("SELECT COUNT(*), SUM(event_count) FROM requests"), (std::vector<std::string>{"400|4000"}));
}

TEST(EventImport, DuplicateSeqInARequestTheInputComesBackToIsNamedAtItsLine) {
    Fixture f;
    std::string a = "request,host,task,event,ts_us,seq\n", b = a;
    for (int seq = 1; seq <= 40; ++seq) a += "r1,h,t,E,1" + std::to_string(seq) + "," + std::to_string(seq) + "\n";
    a += "r2,h,t,E,1,1\n";
    b += "r1,h,t,G,98,5\nr1,h,t,F,99,41\n";  // the repeat opens the second visit: nothing of this visit to compare with
    auto result = f.import({f.dir.write("a.csv", a), f.dir.write("b.csv", b)});
    ASSERT_FALSE(result);
    EXPECT_NE(result.message().find("b.csv:2:"), std::string::npos) << result.message();
    EXPECT_NE(result.message().find("seq 5 appears twice"), std::string::npos) << result.message();
}

// A request's first value of a key is kept (request_attrs) and a differing one stays with its event, also
// when the request comes back after others (its first visit's values are then in the table, not in memory).
TEST(EventImport, ARequestTheInputComesBackToKeepsItsFirstAttributeValues) {
    Fixture f;
    std::string a = "request,host,task,event,ts_us,status,zone\n", b = a;
    for (int i = 1; i <= 40; ++i) a += "r1,h,t,E" + std::to_string(i) + "," + std::to_string(i) + ",ok,\n";
    a += "r2,h,t,A,1,retry,eu\n";
    b += "r1,h,t,F,50,retry,us\nr1,h,t,G,51,ok,eu\n";
    auto summary = f.import({f.dir.write("a.csv", a), f.dir.write("b.csv", b)});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(f.rows("SELECT r.name, k.text, v.text FROM request_attrs a JOIN requests r ON r.id=a.request_id "
                     "JOIN labels k ON k.id=a.key_id JOIN labels v ON v.id=a.value_id ORDER BY 1, 2"),
              (std::vector<std::string>{"r1|status|ok", "r1|zone|us", "r2|status|retry", "r2|zone|eu"}));
    EXPECT_EQ(f.rows("SELECT r.name, k.text, v.text FROM event_attrs a JOIN requests r ON r.id=a.request_id "
                     "JOIN labels k ON k.id=a.key_id JOIN labels v ON v.id=a.value_id ORDER BY 1, 2, 3"),
              (std::vector<std::string>{"r1|status|retry", "r1|zone|eu"}));
}

// Rows reach the tables whole whatever their count against the batches (one statement per 128 rows, the
// rest one by one): every event, its conflicting attributes and its order, for counts around the batch size.
TEST(EventImport, EveryRowIsStoredWhateverItsCountAgainstTheBatches) {
    for (int n : {1, 127, 128, 129, 256, 257, 300}) {
        Fixture f;
        std::string csv = "request,host,task,event,ts_us,seq,status\n";
        std::vector<std::string> expectedEvents, expectedAttrs;
        for (int i = 1; i <= n; ++i) {
            const std::string task = "t" + std::to_string(i % 3);
            const std::string status = i == 1 ? "ok" : i % 5 == 0 ? "retry" + std::to_string(i) : "ok";
            csv += "r1,h," + task + ",E" + std::to_string(i) + "," + std::to_string(1000 + i) + "," + std::to_string(i) + "," + status + "\n";
            expectedEvents.push_back(task + "|" + std::to_string(i) + "|E" + std::to_string(i) + "|" + std::to_string((1000 + i) * 1000));
            if (status != "ok") expectedAttrs.push_back(std::to_string(i) + "|" + status);
        }
        auto summary = f.import({f.dir.write("n.csv", csv)});
        ASSERT_TRUE(summary) << summary.message();
        auto sorted = [](std::vector<std::string> v) { std::sort(v.begin(), v.end()); return v; };
        EXPECT_EQ(sorted(f.rows("SELECT t.text, e.ord, v.text, e.ts_ns FROM events e JOIN labels t ON t.id=e.task_id "
                                "JOIN labels v ON v.id=e.event_id")),
                  sorted(expectedEvents)) << n << " events";
        EXPECT_EQ(sorted(f.rows("SELECT a.ord, v.text FROM event_attrs a JOIN labels v ON v.id=a.value_id")), sorted(expectedAttrs))
            << n << " events";
        EXPECT_EQ(f.rows("SELECT event_count FROM requests"), (std::vector<std::string>{std::to_string(n)}));
    }
}

TEST_F(BadInput, RequestAlreadyImported) {
    expectRejected("again.csv", "request,host,task,event,ts_us\nr9,h,t,A,1\nr1,h,t,A,1\n",
                   {"again.csv:3:", "'r1' is already in the database"});
}

TEST_F(BadInput, DuplicateHeaderColumn) {
    expectRejected("twice.csv", "request,host,task,event,ts_us,host\nr9,h,t,A,1,x\n", {"twice.csv:1:", "'host' twice"});
}

TEST_F(BadInput, UnterminatedQuote) {
    expectRejected("quote.csv", "request,host,task,event,ts_us\nr9,h,t,\"A,1\n", {"quote.csv:2:", "unterminated"});
}

TEST_F(BadInput, MalformedJsonLine) {
    expectRejected("bad.jsonl",
                   R"({"request":"r9","host":"h","task":"t","event":"A","ts_us":1})"
                   "\n"
                   R"({"request":"r9","host":"h","task":"t","event":"B","ts_us":2)",
                   {"bad.jsonl:2:", "invalid JSON"});
}

TEST_F(BadInput, JsonLineMissingKey) {
    expectRejected("nokey.jsonl", R"({"request":"r9","task":"t","event":"A","ts_us":1})",
                   {"nokey.jsonl:1:", "missing required key 'host'"}, InputFormat::EventsJsonl);
}

TEST_F(BadInput, JsonLineNotAnObject) {
    expectRejected("arr.jsonl", "[1,2,3]\n", {"arr.jsonl:1:", "object"}, InputFormat::EventsJsonl);
}

TEST_F(BadInput, UnrecognisedFormat) {
    expectRejected("what.txt", "hello world\n", {"what.txt", "unrecognised format"});
}

TEST_F(BadInput, BadFileAfterGoodFileRollsBackBoth) {
    const auto before = snapshot();
    auto good = f.dir.write("more.csv", "request,host,task,event,ts_us\nr7,h,t,A,1\nr7,h,t,B,2\n");
    auto bad = f.dir.write("broken.csv", "request,host,task,event,ts_us\nr8,h,t,A,x\n");
    auto result = f.import({good, bad}, InputFormat::Auto, "two");
    ASSERT_FALSE(result);
    EXPECT_NE(result.message().find("broken.csv:2:"), std::string::npos);
    EXPECT_EQ(snapshot(), before);
}

TEST_F(BadInput, CancelledImportLeavesDatabaseAsItWas) {
    const auto before = snapshot();
    std::string big = "request,host,task,event,ts_us\n";
    for (int i = 0; i < 20000; ++i) big += "c" + std::to_string(i) + ",h,t,A,1\n";
    CancelToken cancel;
    cancel.cancel();
    ImportOptions options;
    options.inputs = {f.dir.write("big.csv", big)};
    auto result = importTraces(*f.store, options, nullptr, &cancel);
    ASSERT_FALSE(result);
    EXPECT_NE(result.message().find("cancelled"), std::string::npos);
    EXPECT_EQ(snapshot(), before);
}

// Issue 43: one limit for every field and line of every format, the JSON value's (64 MiB), reported as JSON's
// is (file, line, what) before the field is held whole.
TEST_F(BadInput, CsvFieldLongerThanTheLimitIsRefusedNamingFileAndLine) {
    const std::string header = "request,host,task,event,ts_us,note\nbig1,h1,t1,E1,1700000000000000,small\n";
    std::string content = header + "big1,h1,t1,E2,1700000000000001," + std::string(kMaxJsonValueBytes + 10, 'x') + "\n";
    expectRejected("bigfield.csv", content, {"bigfield.csv:3:", "longer than the limit of 64 MiB"}, InputFormat::EventsCsv);
}

TEST_F(BadInput, QuotedCsvFieldOverManyLinesLongerThanTheLimitIsRefused) {
    std::string content = "request,host,task,event,ts_us,note\nbig2,h1,t1,E1,1700000000000000,\"";
    const std::string line(1023, 'y');
    for (std::size_t i = 0; i <= (kMaxJsonValueBytes >> 10); ++i) (content += line) += '\n';
    content += "\"\n";
    expectRejected("multiline.csv", content, {"multiline.csv:2:", "longer than the limit of 64 MiB"}, InputFormat::EventsCsv);
}

TEST_F(BadInput, SpanCsvFieldLongerThanTheLimitIsRefusedNamingFileAndLine) {
    std::string content = "TraceID,SpanID,ParentID,OperationName,StartTimeUnixNano,EndTimeUnixNano\n"
                          "t1,s1,root," + std::string(kMaxJsonValueBytes + 10, 'o') + ",1700000000000000000,1700000000000001000\n";
    expectRejected("bigop.csv", content, {"bigop.csv:2:", "longer than the limit of 64 MiB"}, InputFormat::SpansCsv);
}

// Issue 43: a pipe (a FIFO, /dev/stdin, a process substitution) is an input like a file: read as it comes,
// its format recognised from its first bytes, errors naming it.
TEST(EventImport, AFifoIsReadAsItsContentComes) {
    Fixture f;
    const std::string fifo = f.dir.file("events.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << kTwoRequests; });
    auto summary = f.import({fifo});
    const int unblock = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // a writer still waiting (not read) goes on
    writer.join();
    ::close(unblock);
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->requests, 2);

    const std::string bad = f.dir.file("bad.fifo");
    ASSERT_EQ(::mkfifo(bad.c_str(), 0600), 0);
    std::thread badWriter([&] { std::ofstream(bad, std::ios::binary) << "request,host,task,event,ts_us\nr9,h,t,A,soon\n"; });
    auto refused = f.import({bad});
    const int unblockBad = ::open(bad.c_str(), O_RDONLY | O_NONBLOCK);
    badWriter.join();
    ::close(unblockBad);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.message().rfind(bad + ":2: ts_us 'soon' is not a number", 0), 0u) << refused.message();
}

// A pipe whose writer keeps it open (`tail -f log | tracelight --import - db`) does not hold up a cancel: the
// app's Cancel (or its closing, which waits for its workers) has no signal to break a read that waits.
TEST(EventImport, ACancelIsNotHeldUpByAPipeThatStaysOpen) {
    Fixture f;
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const std::string head = "request,host,task,event,ts_us\nr1,h,t,A,1\n";
    ASSERT_EQ(::write(fds[1], head.data(), head.size()), static_cast<ssize_t>(head.size()));
    CancelToken cancel;
    std::atomic<bool> done{false};
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        cancel.cancel();
        // Not cancelled within 5 s: the writer ends, so that the test fails rather than hangs.
        for (int i = 0; i < 500 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        ::close(fds[1]);
    });
    ImportOptions options;
    options.inputs = {"/dev/fd/" + std::to_string(fds[0])};
    const auto started = std::chrono::steady_clock::now();
    auto result = importTraces(*f.store, options, nullptr, &cancel);
    const auto took = std::chrono::steady_clock::now() - started;
    done = true;
    canceller.join();
    ::close(fds[0]);
    ASSERT_FALSE(result);
    EXPECT_NE(result.message().find("cancelled"), std::string::npos) << result.message();
    EXPECT_LT(took, std::chrono::seconds(2));
}

// Nor by a FIFO that no writer has opened yet: opening it waited for one, past any cancel.
TEST(EventImport, ACancelIsNotHeldUpByAFifoWithNoWriter) {
    Fixture f;
    const std::string fifo = f.dir.file("waiting.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    CancelToken cancel;
    std::atomic<bool> done{false};
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        cancel.cancel();
        for (int i = 0; i < 500 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (!done) ::close(::open(fifo.c_str(), O_WRONLY));  // a writer comes and goes: the test fails rather than hangs
    });
    ImportOptions options;
    options.inputs = {fifo};
    const auto started = std::chrono::steady_clock::now();
    auto result = importTraces(*f.store, options, nullptr, &cancel);
    const auto took = std::chrono::steady_clock::now() - started;
    done = true;
    canceller.join();
    ASSERT_FALSE(result);
    EXPECT_NE(result.message().find("cancelled"), std::string::npos) << result.message();
    EXPECT_LT(took, std::chrono::seconds(2));
}

TEST(EventImport, SameHostTimeGoingBackwardsIsWarned) {
    Fixture f;
    auto summary = f.import({f.dir.write("back.csv", "request,host,task,event,ts_us\nr1,h,t,A,10\nr1,h,t,B,5\n")});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->warnings, 1);
    ASSERT_EQ(summary->warningSamples.size(), 1u);
    EXPECT_NE(summary->warningSamples[0].find("back in time"), std::string::npos);
}

// ---- issue 10: inputs this project did not generate ---------------------------------------------

// 100,000 attribute columns: the header check and the attribute cache were searched per column
// (quadratic: 20 such rows took 47 s). Linear, this takes about a second; the counts say it all arrived.
TEST(EventImport, HundredThousandAttributeColumns) {
    Fixture f;
    constexpr int kColumns = 100000;
    std::string text = "request,host,task,event,ts_us";
    for (int i = 0; i < kColumns; ++i) text += ",a" + std::to_string(i);
    text += '\n';
    for (int row = 0; row < 4; ++row) {  // r1: rows 0 and 1, r2: rows 2 and 3
        text += "r" + std::to_string(1 + row / 2) + ",h,t,e" + std::to_string(row) + "," + std::to_string(10 + row);
        // Odd rows change every third value: those stay with their event.
        for (int i = 0; i < kColumns; ++i) text += (row % 2 == 1 && i % 3 == 0) ? ",changed" : ",v";
        text += '\n';
    }
    auto summary = f.import({f.dir.write("wide.csv", text)});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->events, 4);
    EXPECT_EQ(f.rows("SELECT COUNT(*) FROM request_attrs"), (std::vector<std::string>{std::to_string(2 * kColumns)}));
    EXPECT_EQ(f.rows("SELECT COUNT(*) FROM event_attrs"), (std::vector<std::string>{std::to_string(2 * ((kColumns + 2) / 3))}));
    EXPECT_EQ(f.rows("SELECT COUNT(*) FROM request_attrs a JOIN labels v ON v.id=a.value_id WHERE v.text='v'"),
              (std::vector<std::string>{std::to_string(2 * kColumns)}));
}

// One task logging 200,000 different events and 200,000 repeats of one: numbering repeats was a search
// per event over the task's distinct events (quadratic).
TEST(EventImport, TaskWithHundredsOfThousandsOfEvents) {
    Fixture f;
    constexpr int kEvents = 200000;
    std::string text = "request,host,task,event,ts_us\n";
    for (int i = 0; i < kEvents; ++i) text += "r1,h,t,E" + std::to_string(i) + "," + std::to_string(i) + "\n";
    for (int i = 0; i < kEvents; ++i) text += "r1,h,t,LOOP," + std::to_string(kEvents + i) + "\n";
    auto summary = f.import({f.dir.write("long.csv", text)});
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->events, 2 * kEvents);
    EXPECT_EQ(summary->renamedEvents, kEvents - 1);
    EXPECT_EQ(f.rows("SELECT l.text FROM events e JOIN label_text l ON l.id=e.event_id ORDER BY e.ord DESC LIMIT 1"),
              (std::vector<std::string>{"LOOP#" + std::to_string(kEvents)}));
}

// Old Mac line ends (a lone CR): read as lines, in both event-log formats, not as one long header.
TEST(EventImport, CarriageReturnLineEnds) {
    Fixture f;
    std::string csv = kTwoRequests;
    std::replace(csv.begin(), csv.end(), '\n', '\r');
    auto summary = f.import({f.dir.write("mac.csv", csv)}, InputFormat::Auto, "csv");
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->events, 6);
    EXPECT_EQ(f.events("r1").size(), 4u);
    const std::string jsonl = R"({"request":"j1","host":"h","task":"t","event":"A","ts_us":1})" "\r"
                              R"({"request":"j1","host":"h","task":"t","event":"B","ts_us":2})" "\r";
    summary = f.import({f.dir.write("mac.jsonl", jsonl)}, InputFormat::Auto, "jsonl");
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->events, 2);
}

// A UTF-8 byte-order mark is accepted by every format alike (events-jsonl rejected it).
TEST(EventImport, ByteOrderMarkInEveryFormat) {
    Fixture f;
    const std::string bom = "\xEF\xBB\xBF";
    struct Case { const char* name; std::string text; };
    const Case cases[] = {
        {"bom.csv", "request,host,task,event,ts_us\nb1,h,t,A,1\n"},
        {"bom.jsonl", R"({"request":"b2","host":"h","task":"t","event":"A","ts_us":1})" "\n"},
        {"bom-zipkin.json", R"([{"traceId":"b3","id":"a","name":"x","timestamp":10,"duration":5,"localEndpoint":{"serviceName":"s"}}])"},
        {"bom-jaeger.json", R"({"data":[{"traceID":"b4","spans":[{"traceID":"b4","spanID":"a","operationName":"x","startTime":10,"duration":5}]}]})"},
        {"bom-otlp.json", R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"b5","spanId":"a","name":"x","startTimeUnixNano":"10000","endTimeUnixNano":"20000"}]}]}]})" "\n"},
        {"bom-spans.csv", "TraceID,SpanID,ParentID,PodName,OperationName,StartTimeUnixNano,EndTimeUnixNano\nb6,a,root,web-1-2,x,10000,20000\n"},
    };
    for (const auto& c : cases) {
        auto summary = f.import({f.dir.write(c.name, bom + c.text)}, InputFormat::Auto, c.name);
        ASSERT_TRUE(summary) << c.name << ": " << summary.message();
        EXPECT_GE(summary->events, 1) << c.name;
    }
    EXPECT_EQ(f.rows("SELECT COUNT(*) FROM requests"), (std::vector<std::string>{"6"}));
    EXPECT_EQ(f.rows("SELECT COUNT(*) FROM labels WHERE text LIKE '%' || char(65279) || '%'"), (std::vector<std::string>{"0"}));
}

// The same problem many times is counted many times but listed once among the samples.
TEST(EventImport, WarningSamplesAreDistinct) {
    Fixture f;
    test::ScratchDir dir;
    // Four pieces of one Zipkin span: three identical "duplicate span id" warnings.
    std::string zipkin = "[";
    for (int i = 0; i < 4; ++i)
        zipkin += std::string(i ? "," : "") +
                  R"({"traceId":"t","id":"a","name":"x","timestamp":)" + std::to_string(10 + i) + R"(,"duration":5,"localEndpoint":{"serviceName":"s"}})";
    zipkin += "]";
    const auto path = f.dir.write("pieces.json", zipkin);
    auto summary = f.import({path, path});  // and the same file twice: twice its warnings
    ASSERT_TRUE(summary) << summary.message();
    EXPECT_EQ(summary->warnings, 7);
    std::set<std::string> distinct(summary->warningSamples.begin(), summary->warningSamples.end());
    EXPECT_EQ(distinct.size(), summary->warningSamples.size());
    EXPECT_EQ(summary->warningSamples.size(), 1u);
}

// Errors about a whole trace name the file and the trace (they said only "trace t1: ...").
TEST_F(BadInput, SpanTraceAlreadyImportedNamesFileAndTrace) {
    expectRejected("again.json",
                   R"([{"traceId":"r1","id":"a","name":"x","timestamp":10,"duration":5,"localEndpoint":{"serviceName":"s"}}])",
                   {"again.json: trace r1: ", "'r1' is already in the database"});
}

TEST_F(BadInput, SpanAbsurdTimestampNamesFileAndTrace) {
    expectRejected("absurd.json",
                   R"([{"traceId":"t1","id":"a","name":"x","timestamp":5000000000000000,"duration":5,"localEndpoint":{"serviceName":"s"}}])",
                   {"absurd.json: no events to import", "trace t1: span a: ", "not within the years 1824 to 2116"});  // 2128
    expectRejected("beyond.json",
                   R"([{"traceId":"t1","id":"a","name":"x","timestamp":1000000000000000000,"duration":5,"localEndpoint":{"serviceName":"s"}}])",
                   {"beyond.json: no events to import", "trace t1: span a: ", "out of range"});  // not even 64-bit ns
}

// A Zipkin timestamp of 1e20 is there but beyond range: it was called "no timestamp".
TEST_F(BadInput, SpanTimestampOutOfRange) {
    expectRejected("huge.json",
                   R"([{"traceId":"t1","id":"a","name":"x","timestamp":1e20,"duration":5,"localEndpoint":{"serviceName":"s"}}])",
                   {"huge.json: byte ", "span a: timestamp 1e20 is out of range"});
    expectRejected("huge-otlp.json",
                   R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t1","spanId":"a","name":"x","startTimeUnixNano":"100000000000000000000","endTimeUnixNano":"1"}]}]}]})",
                   {"huge-otlp.json:1: ", "span a: startTimeUnixNano 100000000000000000000 is out of range"});
    // start + duration past 64-bit nanoseconds: the span is dropped with a warning naming its trace (a file
    // with nothing else to import then says so).
    expectRejected("overflow.json",
                   R"({"data":[{"traceID":"t1","spans":[{"traceID":"t1","spanID":"a","operationName":"x","startTime":9000000000000000000,"duration":9000000000000000000}]}]})",
                   {"overflow.json: no events to import", "span a: ", "out of range"});
}

// The warning names the request as the input does ("request #12" was its row id in the database).
TEST(EventImport, BackInTimeWarningNamesTheRequest) {
    Fixture f;
    ASSERT_TRUE(f.import({f.dir.write("first.csv", "request,host,task,event,ts_us\nearlier,h,t,A,1\n")}, InputFormat::Auto, "a"));
    auto summary = f.import({f.dir.write("back.csv", "request,host,task,event,ts_us\nlater,h,t,A,10\nlater,h,t,B,5\n")},
                            InputFormat::Auto, "b");
    ASSERT_TRUE(summary) << summary.message();
    ASSERT_EQ(summary->warningSamples.size(), 1u);
    EXPECT_EQ(summary->warningSamples[0].rfind("request 'later': task t goes back in time on one host", 0), 0u)
        << summary->warningSamples[0];
}

TEST(EventImport, DecimalMicrosecondsAndNanosecondsAreExact) {
    Fixture f;
    ASSERT_TRUE(f.import({f.dir.write("ns.csv", "request,host,task,event,ts_us\n"
                                                "r1,h,t,A,1700000000123456.789\n"
                                                "r1,h,t,B,1700000000123457.001\n"
                                                "r1,h,t,C,+1700000000123457.5\n")}));
    EXPECT_EQ(f.rows("SELECT ts_ns FROM events ORDER BY ord"),
              (std::vector<std::string>{"1700000000123456789", "1700000000123457001", "1700000000123457500"}));
    ASSERT_TRUE(f.import({f.dir.write("ns2.csv", "request,host,task,event,ts_ns\nr2,h,t,A,1700000000123456789\nr2,h,t,B,1700000000123456790\n")}));
    ASSERT_TRUE(f.import({f.dir.write("ns.jsonl", R"({"request":"r3","host":"h","task":"t","event":"A","ts_us":1700000000123456.789})" "\n"
                                                  R"({"request":"r3","host":"h","task":"t","event":"B","ts_us":"1700000000123456.791"})" "\n"
                                                  R"({"request":"r4","host":"h","task":"t","event":"A","ts_ns":1700000000123456789})" "\n")}));
    EXPECT_EQ(f.rows("SELECT r.name || ':' || e.ts_ns FROM events e JOIN requests r ON r.id=e.request_id WHERE r.name != 'r1' ORDER BY r.name, e.ord"),
              (std::vector<std::string>{"r2:1700000000123456789", "r2:1700000000123456790", "r3:1700000000123456789",
                                        "r3:1700000000123456791", "r4:1700000000123456789"}));
    EXPECT_EQ(f.rows("SELECT latency_local_ns FROM requests ORDER BY id"), (std::vector<std::string>{"711", "1", "2", "0"}));
}

// The requests' summaries (counts, the origin host's span, numbered repeats, back-in-time warnings) are
// summed from memory while the input stays on one request, and from the table for a request it comes back
// to: both must match the stored events, whatever the order of rows, tasks, positions and files.
TEST(EventImport, RequestSummariesMatchTheStoredEventsWhateverTheInputOrder) {
    std::mt19937 rng(11);
    // Rounds 6 and 7 have enough requests for the rows to be written on a thread of their own (SqlWorker.h),
    // round 6 with the small budget of round 5.
    for (int round = 0; round < 8; ++round) {
        Fixture f;
        struct Row { std::string request, host, task, event; long ts; int seq; };
        std::vector<std::vector<Row>> byRequest;
        std::map<std::string, std::string> originHost;  // host of the first row the input gives
        std::int64_t repeats = 0, backInTime = 0;
        const int requests = round >= 6 ? 300 : 3 + round * 4;
        for (int r = 0; r < requests; ++r) {
            std::vector<Row> rows;
            const int tasks = 1 + static_cast<int>(rng() % 4);
            int seq = 1;
            for (int t = 0; t < tasks; ++t) {
                std::map<std::string, int> seen;
                long ts = 1000 + static_cast<long>(rng() % 100);
                std::string lastHost;
                long lastTs = 0;
                const int events = 1 + static_cast<int>(rng() % 6);
                for (int e = 0; e < events; ++e) {
                    const std::string host = "h" + std::to_string(rng() % 3);
                    const std::string event = "E" + std::to_string(rng() % 3);  // repeats on purpose
                    ts += static_cast<long>(rng() % 50) - 10;                    // sometimes back in time
                    if (seen[event]++ > 0) ++repeats;
                    if (e > 0 && host == lastHost && ts < lastTs) ++backInTime;
                    lastHost = host;
                    lastTs = ts;
                    rows.push_back({"r" + std::to_string(r), host, "t" + std::to_string(t), event, ts, seq++});
                }
            }
            std::shuffle(rows.begin(), rows.end(), rng);  // seq restores each task's order
            byRequest.push_back(std::move(rows));
        }
        // Two files; in the later rounds some requests are split between them (the input comes back).
        std::string a = "request,host,task,event,ts_us,seq\n", b = a;
        for (std::size_t r = 0; r < byRequest.size(); ++r) {
            auto& rows = byRequest[r];
            // Whole requests in either file; in rounds 2 and 3 one request is split between them (summed again
            // on its own), in round 4 about half (summed again in one scan).
            const bool splitHere = round == 4 ? rng() % 2 == 0 : round >= 2 && round < 4 && r == 1;
            const std::size_t split = splitHere ? rows.size() / 2 : r % 2 ? 0 : rows.size();
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const Row& x = rows[i];
                originHost.try_emplace(x.request, x.host);
                (i < split ? a : b) += x.request + "," + x.host + "," + x.task + "," + x.event + "," + std::to_string(x.ts) + "," +
                                       std::to_string(x.seq) + "\n";
            }
        }
        // The last round holds no more than 100 bytes of a request's events: most are summed from the table.
        ImportOptions options;
        options.inputs = {f.dir.write("a.csv", a), f.dir.write("b.csv", b)};
        options.period = "p";
        if (round == 5 || round == 6) options.requestMemoryBudget = 100;
        auto summary = importTraces(*f.store, options);
        ASSERT_TRUE(summary) << summary.message();
        EXPECT_EQ(summary->renamedEvents, repeats) << "round " << round;
        EXPECT_EQ(summary->warnings, backInTime) << "round " << round << ": " << ::testing::PrintToString(summary->warningSamples);
        // Every <task, event> of a request is unique once repeats are numbered.
        EXPECT_EQ(f.rows("SELECT COUNT(*) FROM (SELECT 1 FROM events GROUP BY request_id, task_id, event_id HAVING COUNT(*) > 1)"),
                  (std::vector<std::string>{"0"}));
        for (const auto& [name, host] : originHost) {
            const auto stored = f.rows("SELECT event_count, task_count, host_count, start_local_ns, latency_local_ns FROM requests "
                                       "WHERE name='" + name + "'");
            const auto truth = f.rows(
                "SELECT COUNT(*), COUNT(DISTINCT task_id), COUNT(DISTINCT host_id), "
                "(SELECT MIN(ts_ns) FROM events e JOIN labels h ON h.id=e.host_id WHERE e.request_id=r.id AND h.text='" + host + "'), "
                "(SELECT MAX(ts_ns) - MIN(ts_ns) FROM events e JOIN labels h ON h.id=e.host_id WHERE e.request_id=r.id AND h.text='" +
                host + "') FROM requests r JOIN events ev ON ev.request_id=r.id WHERE r.name='" + name + "'");
            EXPECT_EQ(stored, truth) << "round " << round << ", request " << name;
        }
    }
}
