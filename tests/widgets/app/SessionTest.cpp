// The session: the one owner of the open database, the scope and the background jobs.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTest>
#include <QTemporaryDir>
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "Session.h"
#include "common/JobRunner.h"
#include "tracelight/import/Import.h"
#include "tracelight/store/Periods.h"

namespace tracelight::app {
namespace {

// A database of two requests, imported from a Jaeger file written here.
QString makeDatabase(const QTemporaryDir& dir, const QString& name) {
    const std::string json = dir.filePath(name + ".json").toStdString();
    std::ofstream(json) << R"({"data":[)"
                        << R"({"traceID":"a1","spans":[{"traceID":"a1","spanID":"1","operationName":"GET /","references":[],"startTime":1700000000000000,"duration":500,"processID":"p","tags":[],"logs":[]}],"processes":{"p":{"serviceName":"web","tags":[]}}},)"
                        << R"({"traceID":"a2","spans":[{"traceID":"a2","spanID":"2","operationName":"GET /","references":[],"startTime":1700000001000000,"duration":700,"processID":"p","tags":[],"logs":[]}],"processes":{"p":{"serviceName":"web","tags":[]}}})"
                        << "]}";
    const QString db = dir.filePath(name + ".tldb");
    auto store = TraceStore::open(db.toStdString(), TraceStore::Mode::Create);
    EXPECT_TRUE(store);
    ImportOptions options;
    options.inputs = {json};
    options.period = "p";
    EXPECT_TRUE(importTraces(*store.value(), options));
    return db;
}

TEST(Session, OpensADatabaseAndGivesEachWorkerAConnectionOfItsOwn) {
    QTemporaryDir dir;
    const QString db = makeDatabase(dir, "one");
    Session session;
    QSignalSpy opened(&session, &Session::opened);
    EXPECT_FALSE(session.isOpen());
    EXPECT_FALSE(session.reader());  // no database, no source
    ASSERT_TRUE(session.open(db));
    EXPECT_EQ(opened.count(), 1);
    EXPECT_EQ(session.path(), db);
    ASSERT_TRUE(session.store());
    const auto reader = session.reader();
    ASSERT_TRUE(reader);
    // Two workers at once, each through its own connection.
    std::size_t counted[2] = {0, 0};
    std::thread first([&] { counted[0] = reader().value()->requestCount(); });
    std::thread second([&] { counted[1] = reader().value()->requestCount(); });
    first.join();
    second.join();
    EXPECT_EQ(counted[0], 2u);
    EXPECT_EQ(counted[1], 2u);
    EXPECT_NE(reader().value().get(), session.store().get());
}

TEST(Session, AFailedOpenKeepsTheDatabaseOpen) {
    QTemporaryDir dir;
    const QString db = makeDatabase(dir, "kept");
    const QString junk = dir.filePath("junk.tldb");
    std::ofstream(junk.toStdString()) << "not a database";
    Session session;
    ASSERT_TRUE(session.open(db));
    const Status failed = session.open(junk);
    EXPECT_FALSE(failed);
    EXPECT_FALSE(failed.message().empty());
    EXPECT_EQ(session.path(), db);
    EXPECT_TRUE(session.store());
    session.close();
    EXPECT_FALSE(session.isOpen());
    EXPECT_FALSE(session.reader());
}

TEST(Session, WritesThroughAConnectionOfItsOwnAndTheReadersSeeIt) {
    QTemporaryDir dir;
    const QString db = makeDatabase(dir, "written");
    Session session;
    EXPECT_FALSE(session.write([](TraceStore&) { return Status::ok(); }));  // nothing open
    ASSERT_TRUE(session.open(db));
    ASSERT_TRUE(session.write([](TraceStore& store) { return addPeriodByTime(store, "first", 1700000000000000000, 1700000000500000000).status(); }));
    bool found = false;
    for (const auto& p : listPeriods(*session.reader()().value())) found = found || (p.name == "first" && p.requests == 1);
    EXPECT_TRUE(found);
}

TEST(Session, TheScopeChangesWithItsRequestsNotWithItsDescription) {
    QTemporaryDir dir;
    Session session;
    ASSERT_TRUE(session.open(makeDatabase(dir, "scoped")));
    EXPECT_TRUE(session.scope().isAll());
    auto some = std::make_shared<const std::vector<RequestId>>(std::vector<RequestId>{RequestId(1)});
    EXPECT_TRUE(session.setScope({some, "1 of 2 requests"}));
    EXPECT_FALSE(session.setScope({std::make_shared<const std::vector<RequestId>>(*some), "the same request, described again"}));
    EXPECT_EQ(session.scope().text, "the same request, described again");
    EXPECT_TRUE(session.setScope({nullptr, "all 2 requests"}));
    EXPECT_TRUE(session.scope().isAll());
    // A database opened afresh starts with every request.
    EXPECT_TRUE(session.setScope({some, "1 of 2 requests"}));
    ASSERT_TRUE(session.open(session.path()));
    EXPECT_TRUE(session.scope().isAll());
}

// Work on a database that is no longer open must not reach the views: opening another cancels every lane's job
// (its result is dropped), except an import's, which makes a database of its own.
TEST(Session, OpeningAnotherDatabaseCancelsTheLastOnesJobsButNotAnImport) {
    QTemporaryDir dir;
    Session session;
    ASSERT_TRUE(session.open(makeDatabase(dir, "first")));
    std::atomic<bool> release{false};
    auto blocked = [&release](const CancelToken& cancel, const ProgressSink&) {
        while (!release && !cancel.isCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return 1;
    };
    int profiled = 0, imported = 0;
    session.job(Session::Job::Profile).start<int>(blocked, [&](int v) { profiled += v; });
    session.job(Session::Job::Import).start<int>(blocked, [&](int v) { imported += v; });
    EXPECT_TRUE(session.isBusy());
    ASSERT_TRUE(session.open(makeDatabase(dir, "second")));
    EXPECT_FALSE(session.isRunning(Session::Job::Profile));
    EXPECT_TRUE(session.isRunning(Session::Job::Import));
    release = true;
    ASSERT_TRUE(QTest::qWaitFor([&] { return !session.isBusy(); }, 10000));
    QTest::qWait(50);  // a dropped result would have arrived by now
    EXPECT_EQ(profiled, 0);
    EXPECT_EQ(imported, 1);
}

TEST(Session, ANewJobInALaneSupersedesTheLastAndEveryEndIsSignalled) {
    QTemporaryDir dir;
    Session session;
    ASSERT_TRUE(session.open(makeDatabase(dir, "lanes")));
    QSignalSpy finished(&session, &Session::jobFinished);
    std::vector<int> shown;
    auto slow = [](const CancelToken& cancel, const ProgressSink&) {
        for (int i = 0; i < 200 && !cancel.isCancelled(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return 1;
    };
    session.job(Session::Job::Bottlenecks).start<int>(slow, [&](int v) { shown.push_back(v); });
    session.job(Session::Job::Bottlenecks).start<int>([](const CancelToken&, const ProgressSink&) { return 2; }, [&](int v) { shown.push_back(v); });
    ASSERT_TRUE(QTest::qWaitFor([&] { return !session.isBusy() && !shown.empty(); }, 10000));
    QTest::qWait(300);  // the superseded job has ended by now
    EXPECT_EQ(shown, std::vector<int>{2});
    EXPECT_GE(finished.count(), 2);  // the superseded job's end and the second's
}

} // namespace
} // namespace tracelight::app
