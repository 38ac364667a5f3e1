#pragma once
// OTLP/gRPC: the TraceService's Export method served by gRPC (Debian's libgrpc++-dev) through its generic
// callback API, so that a request's bytes go through the same decoder, checks and writer as an OTLP/HTTP
// protobuf body (OtlpHttp.h), and its answers are the same ExportTraceServiceResponse and google.rpc.Status.
#include <chrono>
#include <memory>
#include <string>

#include "tracelight/base/Status.h"
#include "tracelight/capture/OtlpReceiver.h"

namespace tracelight {

class CaptureWriter;
struct ReceiverCounters;

class OtlpGrpcServer {
public:
    // Listens on options.grpcAddress, an IP literal and port as the receiver spells it out (port 0 picks one; never
    // shared with another process's listener).
    static Result<std::unique_ptr<OtlpGrpcServer>> start(const ReceiverOptions& options, CaptureWriter& writer, ReceiverCounters& counters);
    ~OtlpGrpcServer();
    OtlpGrpcServer(const OtlpGrpcServer&) = delete;
    OtlpGrpcServer& operator=(const OtlpGrpcServer&) = delete;

    std::string endpoint() const { return m_endpoint; }  // "127.0.0.1:4317"
    // No new calls; those in flight answered within the deadline (then cancelled). The writer must still run.
    void shutdown(std::chrono::milliseconds deadline);

private:
    class Impl;
    explicit OtlpGrpcServer(std::unique_ptr<Impl> impl, std::string endpoint);
    std::unique_ptr<Impl> m_impl;
    std::string m_endpoint;
};

} // namespace tracelight
