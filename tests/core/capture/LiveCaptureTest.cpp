// The live capture's store side: received spans are committed at once and counted, a trace becomes a request
// once quiet, a late span re-assembles its trace, and what a killed run left open is stored by the next.
#include <gtest/gtest.h>

#include "TestUtil.h"
#include "capture/CaptureTestUtil.h"
#include "tracelight/capture/LiveCapture.h"
#include "tracelight/capture/OtlpHttp.h"
#include "tracelight/store/RequestReads.h"
#include "tracelight/store/SpanReads.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;
using namespace tracelight::test;

namespace {

constexpr TimeNs kSecond = 1'000'000'000;

std::vector<RawSpan> received(const std::vector<TestSpan>& spans) {
    auto decoded = capture::decodeBody(capture::BodyKind::Protobuf, "", protobufRequest(spans), 1 << 20);
    return std::get<capture::ReceivedSpans>(decoded).spans;
}

std::unique_ptr<TraceStore> openStore(const std::string& path) {
    auto store = TraceStore::open(path, TraceStore::Mode::Create);
    EXPECT_TRUE(store) << store.message();
    return std::move(store.value());
}

CaptureOptions options() {
    CaptureOptions o;
    o.period = "capture-test";
    o.quietNs = 2 * kSecond;
    return o;
}

} // namespace

TEST(LiveCapture, ATraceIsStoredOnceQuietAndItsSpansCountedMeanwhile) {
    ScratchDir dir;
    auto store = openStore(dir.file("live.tldb"));
    auto capture = LiveCapture::open(*store, options(), 0);
    ASSERT_TRUE(capture) << capture.message();
    auto& live = *capture.value();
    ASSERT_TRUE(live.accept(received({{1, 1}, {1, 2, 1}, {2, 5}}), 0));
    EXPECT_EQ(store->info()->spans, 3);  // committed and counted before any request exists
    EXPECT_EQ(store->info()->requests, 0);

    ASSERT_TRUE(live.accept(received({{1, 3, 1}}), kSecond));
    auto early = live.completeQuiet(2 * kSecond);  // trace 2 is quiet, trace 1 got a span a second ago
    ASSERT_TRUE(early) << early.message();
    EXPECT_EQ(early->stored, 1);
    EXPECT_EQ(live.openTraces(), 1u);
    EXPECT_EQ(store->info()->requests, 1);
    EXPECT_EQ(store->info()->spans, 4);

    auto late = live.completeQuiet(3 * kSecond);
    ASSERT_TRUE(late) << late.message();
    EXPECT_EQ(late->stored, 1);
    const auto info = store->info();
    EXPECT_EQ(info->requests, 2);
    EXPECT_EQ(info->spans, 4);
    ASSERT_EQ(info->periods.size(), 1u);
    EXPECT_EQ(info->periods[0].name, "capture-test");
    const auto request = requestByName(*store, traceHex(1));
    ASSERT_TRUE(request);
    const auto spans = requestSpans(*store, *request);
    ASSERT_EQ(spans.size(), 3u);
    EXPECT_EQ(spans[0].service, "shop");
}

TEST(LiveCapture, ALateSpanReassemblesItsStoredTrace) {
    ScratchDir dir;
    auto store = openStore(dir.file("late.tldb"));
    auto live = std::move(LiveCapture::open(*store, options(), 0).value());
    ASSERT_TRUE(live->accept(received({{1, 1}, {1, 2, 1}}), 0));
    ASSERT_EQ(live->completeAll()->stored, 1);
    ASSERT_EQ(requestSpans(*store, *requestByName(*store, traceHex(1))).size(), 2u);

    ASSERT_TRUE(live->accept(received({{1, 3, 2}}), 10 * kSecond));
    EXPECT_EQ(store->info()->spans, 3);  // the open trace's spans, not its stored request's as well
    auto again = live->completeQuiet(20 * kSecond);
    ASSERT_TRUE(again) << again.message();
    EXPECT_EQ(again->replaced, 1);
    EXPECT_EQ(store->info()->requests, 1);
    EXPECT_EQ(store->info()->spans, 3);
    const auto spans = requestSpans(*store, *requestByName(*store, traceHex(1)));
    ASSERT_EQ(spans.size(), 3u);
}

TEST(LiveCapture, TracesLeftOpenByAStoppedRunAreStoredByTheNext) {
    ScratchDir dir;
    const std::string path = dir.file("killed.tldb");
    {
        auto store = openStore(path);
        auto live = std::move(LiveCapture::open(*store, options(), 0).value());
        ASSERT_TRUE(live->accept(received({{7, 1}, {7, 2, 1}}), 0));
        // Gone without completing (a kill): the spans are committed all the same.
    }
    auto store = openStore(path);
    EXPECT_EQ(store->info()->spans, 2);
    auto live = std::move(LiveCapture::open(*store, options(), 100 * kSecond).value());
    EXPECT_EQ(live->openTraces(), 1u);
    EXPECT_EQ(live->completeQuiet(101 * kSecond)->stored, 0);  // quiet counts from the restart
    EXPECT_EQ(live->completeQuiet(102 * kSecond)->stored, 1);
    EXPECT_EQ(store->info()->requests, 1);
}
