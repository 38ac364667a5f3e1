// OTLP/HTTP without sockets: what a request's head and body decide, and the replies in the protocol's encodings.
#include <gtest/gtest.h>

#include <google/protobuf/unknown_field_set.h>

#include "capture/CaptureTestUtil.h"
#include "tracelight/capture/OtlpHttp.h"

using namespace tracelight;
using namespace tracelight::capture;
using namespace tracelight::test;

namespace {

const std::size_t kLimit = 1 << 20;

int statusOf(const std::variant<BodyKind, HttpReply>& head) {
    const auto* reply = std::get_if<HttpReply>(&head);
    return reply ? reply->status : 0;
}

ReceivedSpans spansOf(std::variant<ReceivedSpans, HttpReply> decoded) {
    if (auto* reply = std::get_if<HttpReply>(&decoded)) ADD_FAILURE() << reply->status << " " << reply->body;
    auto* spans = std::get_if<ReceivedSpans>(&decoded);
    return spans ? std::move(*spans) : ReceivedSpans{};
}

HttpReply replyOf(std::variant<ReceivedSpans, HttpReply> decoded) {
    auto* reply = std::get_if<HttpReply>(&decoded);
    EXPECT_TRUE(reply) << "decoded without an error";
    return reply ? *reply : HttpReply{};
}

} // namespace

TEST(OtlpHttp, HeadChoosesTheBodyKindOrRefuses) {
    EXPECT_EQ(std::get<BodyKind>(checkHead({"POST", "/v1/traces", "application/x-protobuf", ""})), BodyKind::Protobuf);
    EXPECT_EQ(std::get<BodyKind>(checkHead({"POST", "/v1/traces", "application/json; charset=utf-8", "gzip"})), BodyKind::Json);
    EXPECT_EQ(statusOf(checkHead({"POST", "/v1/metrics", "application/x-protobuf", ""})), 404);
    EXPECT_EQ(statusOf(checkHead({"GET", "/v1/traces", "application/x-protobuf", ""})), 405);
    EXPECT_EQ(statusOf(checkHead({"POST", "/v1/traces", "text/plain", ""})), 415);
    EXPECT_EQ(statusOf(checkHead({"POST", "/v1/traces", "application/json", "br"})), 415);
}

TEST(OtlpHttp, ProtobufAndJsonBodiesGiveTheSameSpans) {
    const std::vector<TestSpan> spans{{1, 1, 0, "GET /"}, {1, 2, 1, "query"}};
    auto fromProtobuf = spansOf(decodeBody(BodyKind::Protobuf, "", protobufRequest(spans), kLimit));
    auto fromJson = spansOf(decodeBody(BodyKind::Json, "", jsonRequest(spans), kLimit));
    ASSERT_EQ(fromProtobuf.spans.size(), 2u);
    ASSERT_EQ(fromJson.spans.size(), 2u);
    for (const auto* got : {&fromProtobuf, &fromJson}) {
        EXPECT_EQ(got->rejected, 0);
        EXPECT_EQ(got->spans[1].traceId, traceHex(1));
        EXPECT_EQ(got->spans[1].spanId, spanHex(2));
        EXPECT_EQ(got->spans[1].parentId, spanHex(1));
        EXPECT_EQ(got->spans[1].service, "shop");
        EXPECT_EQ(got->spans[1].operation, "query");
        EXPECT_EQ(got->spans[1].attributes.front(), std::make_pair(std::string("http.route"), std::string("/item/2")));
    }
    EXPECT_EQ(fromProtobuf.spans[0].events.size(), 1u);
}

TEST(OtlpHttp, GzipBodiesAreUnpackedWithinTheLimit) {
    const std::string body = protobufRequest({{1, 1}, {1, 2, 1}});
    EXPECT_EQ(spansOf(decodeBody(BodyKind::Protobuf, "gzip", gzipped(body), kLimit)).spans.size(), 2u);
    const std::string packed = gzipped(body);
    const HttpReply truncated = replyOf(decodeBody(BodyKind::Protobuf, "gzip", packed.substr(0, packed.size() / 2), kLimit));
    EXPECT_EQ(truncated.status, 400);
    EXPECT_NE(truncated.body.find("truncated gzip"), std::string::npos);
    EXPECT_EQ(replyOf(decodeBody(BodyKind::Protobuf, "gzip", "not gzip at all", kLimit)).status, 400);
    // A small body that unpacks past the limit (a gzip bomb) is refused as too large, without holding it all.
    const std::string bomb = gzipped(std::string(8 << 20, 'x'));
    ASSERT_LT(bomb.size(), kLimit);
    EXPECT_EQ(replyOf(decodeBody(BodyKind::Protobuf, "gzip", bomb, kLimit)).status, 413);
    EXPECT_EQ(replyOf(decodeBody(BodyKind::Protobuf, "", std::string(kLimit + 1, '\0'), kLimit)).status, 413);
}

TEST(OtlpHttp, ABodyThatIsNotARequestIs400InItsEncoding) {
    const HttpReply pb = replyOf(decodeBody(BodyKind::Protobuf, "", "\x0a\xff\xff\xff\x0f garbage", kLimit));
    EXPECT_EQ(pb.status, 400);
    EXPECT_EQ(pb.contentType, "application/x-protobuf");
    EXPECT_EQ(pb.body[0], '\x08');  // google.rpc.Status code
    EXPECT_EQ(pb.body[1], 3);       // INVALID_ARGUMENT
    const HttpReply json = replyOf(decodeBody(BodyKind::Json, "", "{\"resourceSpans\": [", kLimit));
    EXPECT_EQ(json.status, 400);
    EXPECT_NE(json.body.find("invalid JSON"), std::string::npos);
}

TEST(OtlpHttp, MalformedSpansAreRejectedAndTheOthersKept) {
    otlppb::collector::trace::v1::ExportTraceServiceRequest request;
    request.ParseFromString(protobufRequest({{1, 1}, {1, 2, 1}}));
    auto* scope = request.mutable_resource_spans(0)->mutable_scope_spans(0);
    scope->mutable_spans(1)->set_trace_id("short");       // not 16 bytes
    addSpan(*scope, {1, 3, 1});
    scope->mutable_spans(2)->set_start_time_unix_nano(0);  // no start time
    const auto got = spansOf(decodeBody(BodyKind::Protobuf, "", request.SerializeAsString(), kLimit));
    EXPECT_EQ(got.spans.size(), 1u);
    EXPECT_EQ(got.rejected, 2);
    EXPECT_NE(got.rejectedMessage.find("2 spans rejected"), std::string::npos) << got.rejectedMessage;

    const HttpReply partial = successReply(BodyKind::Protobuf, got.rejected, got.rejectedMessage);
    otlppb::collector::trace::v1::ExportTraceServiceResponse response;
    ASSERT_TRUE(response.ParseFromString(partial.body));
    EXPECT_EQ(response.partial_success().rejected_spans(), 2);
    EXPECT_EQ(response.partial_success().error_message(), got.rejectedMessage);
    EXPECT_EQ(successReply(BodyKind::Json, 2, "why").body, R"({"partialSuccess":{"rejectedSpans":"2","errorMessage":"why"}})");
    EXPECT_EQ(successReply(BodyKind::Json).body, "{}");
    EXPECT_TRUE(successReply(BodyKind::Protobuf).body.empty());
}

TEST(OtlpHttp, BusyRepliesCarryTheRetryDelay) {
    const HttpReply busy = errorReply(BodyKind::Json, 429, "behind", 2);
    EXPECT_EQ(busy.status, 429);
    EXPECT_EQ(busy.retryAfterSeconds, 2);
    EXPECT_EQ(busy.body, R"({"code":8,"message":"behind"})");  // RESOURCE_EXHAUSTED
}

TEST(OtlpHttp, AProtobufRetryCarriesRetryInfoForGrpcClients) {
    const HttpReply busy = errorReply(BodyKind::Protobuf, 429, "behind", 2);
    google::protobuf::UnknownFieldSet status;
    ASSERT_TRUE(status.ParseFromString(busy.body));
    ASSERT_EQ(status.field_count(), 3);
    EXPECT_EQ(status.field(0).varint(), 8u);  // RESOURCE_EXHAUSTED
    EXPECT_EQ(status.field(1).length_delimited(), "behind");
    google::protobuf::UnknownFieldSet any, retryInfo, duration;
    ASSERT_TRUE(any.ParseFromString(status.field(2).length_delimited()));
    EXPECT_EQ(any.field(0).length_delimited(), "type.googleapis.com/google.rpc.RetryInfo");
    ASSERT_TRUE(retryInfo.ParseFromString(any.field(1).length_delimited()));
    ASSERT_TRUE(duration.ParseFromString(retryInfo.field(0).length_delimited()));
    EXPECT_EQ(duration.field(0).number(), 1);
    EXPECT_EQ(duration.field(0).varint(), 2u);  // seconds
    EXPECT_EQ(busy.message, "behind");
}
