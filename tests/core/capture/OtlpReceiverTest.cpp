// The receiver over a real loopback socket: a request is answered only once its spans are committed, a stop
// stores every open trace, and a body too large, too slow, or one too many for the memory budget is answered
// in bounded time.
#include <gtest/gtest.h>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <thread>

#include "LoopbackClient.h"
#include "TestUtil.h"
#include "capture/CaptureTestUtil.h"
#include "tracelight/capture/OtlpReceiver.h"
#include "tracelight/store/TraceStore.h"

using namespace tracelight;
using namespace tracelight::test;

namespace {

using Client = LoopbackClient;

std::string post(const std::string& type, const std::string& body, const std::string& extra = "") { return otlpPost(type, body, extra); }

int statusOf(const std::string& response) { return httpStatusOf(response); }

struct Running {
    std::unique_ptr<TraceStore> store;
    std::unique_ptr<OtlpReceiver> receiver;
    std::thread thread;
    int port = 0;
    std::string grpcTarget;  // "127.0.0.1:PORT"

    Running(const std::string& path, ReceiverOptions options) {
        store = std::move(TraceStore::open(path, TraceStore::Mode::Create).value());
        options.httpAddress = "127.0.0.1:0";
        options.grpcAddress = "127.0.0.1:0";
        if (options.capture.period.empty()) options.capture.period = "capture-test";
        auto started = OtlpReceiver::start(*store, options, nullptr);
        EXPECT_TRUE(started) << started.message();
        receiver = std::move(started.value());
        const std::string endpoint = receiver->httpEndpoint();
        port = std::atoi(endpoint.substr(endpoint.rfind(':') + 1).c_str());
        grpcTarget = receiver->grpcEndpoint();
        thread = std::thread([this] { EXPECT_TRUE(receiver->run()); });
    }
    void stop() {
        if (!thread.joinable()) return;
        receiver->stop();
        thread.join();
    }
    ~Running() { stop(); }
};

// One OTLP/gRPC call of `method` with the message bytes given: its status, and the answer's bytes.
struct GrpcAnswer {
    grpc::Status status;
    std::string bytes;
};
GrpcAnswer grpcCall(const std::string& target, const std::string& message,
                    const std::string& method = "/opentelemetry.proto.collector.trace.v1.TraceService/Export") {
    grpc::GenericStub stub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    grpc::CompletionQueue queue;
    grpc::Slice slice(message);
    grpc::ByteBuffer request(&slice, 1), response;
    GrpcAnswer answer;
    auto call = stub.PrepareUnaryCall(&context, method, request, &queue);
    call->StartCall();
    call->Finish(&response, &answer.status, reinterpret_cast<void*>(1));
    void* tag = nullptr;
    bool ok = false;
    EXPECT_TRUE(queue.Next(&tag, &ok));
    std::vector<grpc::Slice> slices;
    if (response.Dump(&slices).ok())
        for (const auto& s : slices) answer.bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    return answer;
}

} // namespace

TEST(OtlpReceiver, AnAcknowledgedRequestIsStoredAndAStopStoresItsTrace) {
    ScratchDir dir;
    ReceiverOptions options;
    options.capture.quietNs = 3600 * std::int64_t(1'000'000'000);  // only the stop completes it
    Running running(dir.file("recv.tldb"), options);
    {
        Client client(running.port);
        client.send(post("application/x-protobuf", protobufRequest({{1, 1}, {1, 2, 1}})));
        EXPECT_EQ(statusOf(client.readAll()), 200);
    }
    {
        Client client(running.port);
        client.send(post("application/json", gzipped(jsonRequest({{2, 1}})), "Content-Encoding: gzip\r\n"));
        EXPECT_EQ(statusOf(client.readAll()), 200);
    }
    // Acknowledged: committed, and counted by any reader, before the trace is complete.
    auto reader = TraceStore::open(dir.file("recv.tldb"), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader);
    EXPECT_EQ(reader.value()->info()->spans, 3);
    EXPECT_EQ(reader.value()->info()->requests, 0);
    running.stop();
    EXPECT_EQ(reader.value()->info()->requests, 2);
    EXPECT_EQ(reader.value()->info()->spans, 3);
}

TEST(OtlpReceiver, BadRequestsAreAnsweredAndTheServerGoesOn) {
    ScratchDir dir;
    ReceiverOptions options;
    options.maxBodyBytes = 1 << 20;
    options.readTimeout = std::chrono::milliseconds(300);
    Running running(dir.file("bad.tldb"), options);
    {
        Client client(running.port);
        client.send(post("application/x-protobuf", "\x0a\xff\xff\xff\x0f not protobuf"));
        EXPECT_EQ(statusOf(client.readAll()), 400);
    }
    {
        // A body announced past the limit is refused at its head, before a byte of it is read.
        Client client(running.port);
        client.send("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: 104857600\r\n\r\n");
        EXPECT_EQ(statusOf(client.readAll()), 413);
    }
    {
        // A client that never finishes its body is answered 408 once the read timeout passes.
        const auto began = std::chrono::steady_clock::now();
        Client client(running.port);
        client.send("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"resou");
        EXPECT_EQ(statusOf(client.readAll()), 408);
        EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(5));
    }
    {
        Client client(running.port);
        client.send("GET /v1/traces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        EXPECT_EQ(statusOf(client.readAll()), 405);
    }
    Client client(running.port);
    client.send(post("application/x-protobuf", protobufRequest({{1, 1}})));
    EXPECT_EQ(statusOf(client.readAll()), 200);
}

TEST(OtlpReceiver, BodiesPastTheMemoryBudgetWaitOutside) {
    ScratchDir dir;
    ReceiverOptions options;
    options.maxBytesInFlight = 1000;
    options.retryAfterSeconds = 3;
    Running running(dir.file("budget.tldb"), options);
    Client first(running.port);
    first.send("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 800\r\n\r\n{");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // its head read: its 800 bytes are reserved
    Client second(running.port);
    second.send("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 800\r\n\r\n{");
    const std::string busy = second.readAll();
    EXPECT_EQ(statusOf(busy), 429);
    EXPECT_NE(busy.find("Retry-After: 3"), std::string::npos) << busy;
}

TEST(OtlpReceiver, GrpcExportIsStoredAndAnsweredAsOverHttp) {
    ScratchDir dir;
    ReceiverOptions options;
    options.capture.quietNs = 3600 * std::int64_t(1'000'000'000);
    Running running(dir.file("grpc.tldb"), options);
    ASSERT_FALSE(running.grpcTarget.empty());
    const GrpcAnswer ok = grpcCall(running.grpcTarget, protobufRequest({{1, 1}, {1, 2, 1}, {2, 1}}));
    EXPECT_TRUE(ok.status.ok()) << ok.status.error_message();
    otlppb::collector::trace::v1::ExportTraceServiceResponse response;
    ASSERT_TRUE(response.ParseFromString(ok.bytes));
    EXPECT_FALSE(response.has_partial_success());
    // Acknowledged means committed.
    auto reader = TraceStore::open(dir.file("grpc.tldb"), TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(reader);
    EXPECT_EQ(reader.value()->info()->spans, 3);

    // A malformed span is left out and counted, as over HTTP.
    otlppb::collector::trace::v1::ExportTraceServiceRequest request;
    ASSERT_TRUE(request.ParseFromString(protobufRequest({{3, 1}, {3, 2, 1}})));
    request.mutable_resource_spans(0)->mutable_scope_spans(0)->mutable_spans(1)->set_span_id("abc");
    const GrpcAnswer partial = grpcCall(running.grpcTarget, request.SerializeAsString());
    EXPECT_TRUE(partial.status.ok());
    ASSERT_TRUE(response.ParseFromString(partial.bytes));
    EXPECT_EQ(response.partial_success().rejected_spans(), 1);
    EXPECT_FALSE(response.partial_success().error_message().empty());

    // Not a request, and another method: refused with their codes; the server goes on.
    EXPECT_EQ(grpcCall(running.grpcTarget, "\x0a\xff\xff\xff\x0f not protobuf").status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(grpcCall(running.grpcTarget, "", "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export").status.error_code(),
              grpc::StatusCode::UNIMPLEMENTED);
    running.stop();
    EXPECT_EQ(reader.value()->info()->spans, 4);
    EXPECT_EQ(reader.value()->info()->requests, 3);
    EXPECT_EQ(running.receiver->counts().rejectedSpans, 1);
}

TEST(OtlpReceiver, AGrpcAddressInUseIsAnErrorNotASharedPort) {
    ScratchDir dir;
    Running first(dir.file("a.tldb"), ReceiverOptions{});
    auto store = TraceStore::open(dir.file("b.tldb"), TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ReceiverOptions options;
    options.httpAddress = "127.0.0.1:0";
    options.grpcAddress = first.grpcTarget;
    options.capture.period = "second";
    auto second = OtlpReceiver::start(*store.value(), options, nullptr);
    ASSERT_FALSE(second);
    EXPECT_NE(second.message().find(first.grpcTarget), std::string::npos) << second.message();
    // Addresses are checked as OTLP/HTTP's are: gRPC itself would take port 99999 as 34463.
    for (const char* bad : {"127.0.0.1:99999", "nonsense", "example.com:4317"}) {
        options.grpcAddress = bad;
        auto refused = OtlpReceiver::start(*store.value(), options, nullptr);
        ASSERT_FALSE(refused) << bad;
        EXPECT_NE(refused.message().find("OTLP/gRPC address '" + std::string(bad) + "'"), std::string::npos) << refused.message();
    }
}
