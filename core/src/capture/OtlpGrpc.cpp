#include "capture/OtlpGrpc.h"

#include "tracelight/base/LoadableModule.h"

namespace tracelight {

Result<std::unique_ptr<OtlpGrpcServer>> OtlpGrpcServer::start(const ReceiverOptions& options, CaptureWriter& writer,
                                                               ReceiverCounters& counters) {
    auto entry = moduleSymbol("tracelight_grpc", "tracelight_otlp_grpc_start");
    if (!entry) return Status::error("OTLP/gRPC is not available: " + entry.message());
    Result<std::unique_ptr<OtlpGrpcServer>> out = Status::error("OTLP/gRPC: the module gave no server");
    reinterpret_cast<OtlpGrpcStart>(entry.value())(options, writer, counters, out);
    return out;
}

} // namespace tracelight
