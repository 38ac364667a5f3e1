#pragma once
// OTLP/gRPC: the TraceService's Export method served by gRPC (Debian's libgrpc++-dev) through its generic
// callback API, so that a request's bytes go through the same decoder, checks and writer as an OTLP/HTTP
// protobuf body (OtlpHttp.h), and its answers are the same ExportTraceServiceResponse and google.rpc.Status.
// The server is the module libtracelight_grpc.so (OtlpGrpcModule.cpp), loaded when a receiver first listens
// for gRPC: gRPC's libraries are then not loaded by every program that links the core (base/LoadableModule.h).
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
    virtual ~OtlpGrpcServer() = default;

    virtual std::string endpoint() const = 0;  // "127.0.0.1:4317"
    // No new calls; those in flight answered within the deadline (then cancelled). The writer must still run.
    virtual void shutdown(std::chrono::milliseconds deadline) = 0;
};

// The module's entry, by the name "tracelight_otlp_grpc_start": start's work, its result in `out`.
using OtlpGrpcStart = void (*)(const ReceiverOptions& options, CaptureWriter& writer, ReceiverCounters& counters,
                               Result<std::unique_ptr<OtlpGrpcServer>>& out);

} // namespace tracelight
