// The OTLP/gRPC receiver's server, built as the module libtracelight_grpc.so (capture/OtlpGrpc.h says why).
#include "capture/OtlpGrpc.h"

#include <grpc/support/log.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <climits>
#include <utility>
#include <vector>

#include "capture/CaptureWriter.h"
#include "tracelight/capture/OtlpHttp.h"

namespace tracelight {

namespace {

constexpr const char* kExportMethod = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

// An HTTP-side refusal as the gRPC status that carries it: the nearest code, its message, and its
// google.rpc.Status (with a RetryInfo when it asks for a delay) as the status details.
grpc::Status statusOf(const capture::HttpReply& reply) {
    return grpc::Status(static_cast<grpc::StatusCode>(capture::grpcCode(reply.status)), reply.message, reply.body);
}

std::string bytesOf(const grpc::ByteBuffer& buffer) {
    std::vector<grpc::Slice> slices;
    std::string out;
    if (!buffer.Dump(&slices).ok()) return out;
    out.reserve(buffer.Length());
    for (const grpc::Slice& slice : slices) out.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    return out;
}

struct Shared {
    const ReceiverOptions& options;
    CaptureWriter& writer;
    ReceiverCounters& counters;
};

// One Export call: read its request, hand its spans to the writer, answer once they are committed.
class ExportReactor final : public grpc::ServerGenericBidiReactor {
public:
    ExportReactor(grpc::GenericCallbackServerContext* context, Shared& shared) : m_shared(shared) {
        if (context->method() != kExportMethod) {
            Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "only " + std::string(kExportMethod) + " is served here"));
            return;
        }
        StartRead(&m_request);
    }

    void OnReadDone(bool ok) override {
        if (!ok) {
            Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the call ended without its ExportTraceServiceRequest"));
            return;
        }
        ++m_shared.counters.requests;
        const std::string body = bytesOf(m_request);
        m_request.Clear();
        // gRPC has unpacked a compressed message already, and kept it within the size limit.
        auto decoded = capture::decodeBody(capture::BodyKind::Protobuf, {}, body, m_shared.options.maxBodyBytes);
        if (auto* refused = std::get_if<capture::HttpReply>(&decoded)) {
            Finish(statusOf(*refused));
            return;
        }
        auto& received = std::get<capture::ReceivedSpans>(decoded);
        m_shared.counters.rejected += received.rejected;
        m_rejected = received.rejected;
        m_rejectedMessage = std::move(received.rejectedMessage);
        if (received.spans.empty()) {
            answer();
            return;
        }
        const std::int64_t count = static_cast<std::int64_t>(received.spans.size());
        // Answered from the writer's thread once committed (a reactor may be told to finish from any thread).
        const bool queued = m_shared.writer.submit(std::move(received.spans), [this, count](const Status& stored) {
            if (!stored) {
                Finish(statusOf(capture::errorReply(capture::BodyKind::Protobuf, 503, "cannot store the spans: " + stored.message(),
                                                    m_shared.options.retryAfterSeconds)));
                return;
            }
            m_shared.counters.spans += count;
            answer();
        });
        if (!queued)
            Finish(statusOf(capture::errorReply(capture::BodyKind::Protobuf, 429,
                                                "the store is behind: too many spans waiting to be written; retry later",
                                                m_shared.options.retryAfterSeconds)));
    }

    void OnDone() override { delete this; }

private:
    void answer() {
        const std::string bytes = capture::successReply(capture::BodyKind::Protobuf, m_rejected, m_rejectedMessage).body;
        grpc::Slice slice(bytes);
        m_response = grpc::ByteBuffer(&slice, 1);
        StartWriteAndFinish(&m_response, grpc::WriteOptions(), grpc::Status::OK);
    }

    Shared& m_shared;
    grpc::ByteBuffer m_request, m_response;
    std::int64_t m_rejected = 0;
    std::string m_rejectedMessage;
};

class ExportService final : public grpc::CallbackGenericService {
public:
    explicit ExportService(Shared& shared) : m_shared(shared) {}
    grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) override {
        return new ExportReactor(context, m_shared);
    }

private:
    Shared& m_shared;
};

} // namespace

// The receiver's gRPC server: gRPC's own objects, which only this module knows.
class GrpcServer final : public OtlpGrpcServer {
public:
    GrpcServer(const ReceiverOptions& options, CaptureWriter& writer, ReceiverCounters& counters)
        : m_shared{options, writer, counters}, m_service(m_shared) {}
    ~GrpcServer() override { shutdown(std::chrono::milliseconds(0)); }

    Status listen() {
        const std::string& address = m_shared.options.grpcAddress;  // HOST:PORT or [V6]:PORT, checked by the receiver
        const auto colon = address.rfind(':');
        // gRPC's own log lines (to stderr) would repeat, less clearly, what the receiver reports itself.
        gpr_set_log_function([](gpr_log_func_args*) {});
        grpc::ServerBuilder builder;
        int port = 0;
        builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
        // gRPC shares a port with another listener by default (SO_REUSEPORT): a second receiver must fail instead.
        builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
        builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<std::size_t>(m_shared.options.maxBodyBytes, INT_MAX)));
        builder.RegisterCallbackGenericService(&m_service);
        m_server = builder.BuildAndStart();
        if (!m_server || port == 0) return Status::error("cannot listen on " + address + " (OTLP/gRPC): the address is in use or not this machine's");
        m_endpoint = address.substr(0, colon + 1) + std::to_string(port);
        return Status::ok();
    }

    std::string endpoint() const override { return m_endpoint; }

    void shutdown(std::chrono::milliseconds deadline) override {
        if (!m_server) return;
        m_server->Shutdown(std::chrono::system_clock::now() + deadline);
        m_server->Wait();
        m_server.reset();
    }

private:
    Shared m_shared;
    ExportService m_service;
    std::unique_ptr<grpc::Server> m_server;
    std::string m_endpoint;
};

} // namespace tracelight

extern "C" void tracelight_otlp_grpc_start(const tracelight::ReceiverOptions& options, tracelight::CaptureWriter& writer,
                                          tracelight::ReceiverCounters& counters, tracelight::Result<std::unique_ptr<tracelight::OtlpGrpcServer>>& out) {
    auto server = std::make_unique<tracelight::GrpcServer>(options, writer, counters);
    if (tracelight::Status s = server->listen(); !s) {
        out = s;
        return;
    }
    out = std::unique_ptr<tracelight::OtlpGrpcServer>(std::move(server));
}
