#pragma once
// The OTLP receiver behind `tracelight-cli serve`: a small HTTP/1.1 server (Boost.Beast over Asio, one network
// thread) and, when asked, an OTLP/gRPC server (gRPC's own threads), in front of a LiveCapture run by a writer
// thread of its own. Every request is answered, and in bounded time: a span is acknowledged only once it is
// committed; a body past the size limit is refused (413; gRPC: RESOURCE_EXHAUSTED from gRPC itself) before it is
// read; an HTTP request not read in full within the read timeout is answered 408; a writer that falls behind
// makes new requests wait outside (429 with Retry-After; gRPC: RESOURCE_EXHAUSTED with a RetryInfo); memory is
// bounded by the connection limit and the bytes of bodies read at once.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "tracelight/base/Status.h"
#include "tracelight/capture/LiveCapture.h"

namespace tracelight {

class TraceStore;

struct ReceiverOptions {
    std::string httpAddress = "127.0.0.1:4318";  // HOST:PORT ([V6]:PORT); port 0 picks a free one
    std::string grpcAddress;                     // OTLP/gRPC, as httpAddress ("127.0.0.1:4317"); empty: none
    std::size_t maxBodyBytes = std::size_t(20) << 20;  // a request's body, and what a gzip body unpacks to
    std::chrono::milliseconds readTimeout{30'000};  // a request, from its first byte to its last
    std::chrono::milliseconds idleTimeout{60'000};  // a kept-alive connection waiting for its next request
    std::size_t maxConnections = 4096;               // more wait to be accepted
    std::size_t maxBytesInFlight = std::size_t(256) << 20;  // bodies being read at once; past it 429
    std::size_t maxPendingSpans = 200'000;           // received and not committed yet; past it 429
    int retryAfterSeconds = 1;                       // what a 429 asks the sender to wait
    std::chrono::milliseconds drainTimeout{10'000};  // at a stop: for requests in flight to finish
    // SIGINT and SIGTERM stop it (as stop() does) from the moment start() returns; a second one ends the process.
    bool handleSignals = false;
    CaptureOptions capture;
};

// A line for the operator (the CLI prints it on stderr).
using ReceiverLog = std::function<void(const std::string& line)>;

class OtlpReceiver {
public:
    // Opens the capture on the store (opened for writing; only the receiver uses it from now on) and binds the
    // address. Errors: the address cannot be parsed or bound, or the store cannot be read.
    static Result<std::unique_ptr<OtlpReceiver>> start(TraceStore& store, ReceiverOptions options, ReceiverLog log);
    ~OtlpReceiver();
    OtlpReceiver(const OtlpReceiver&) = delete;
    OtlpReceiver& operator=(const OtlpReceiver&) = delete;

    // The address bound, "127.0.0.1:4318" (the port chosen when 0 was asked); OTLP/gRPC's ("" without it).
    std::string httpEndpoint() const;
    std::string grpcEndpoint() const;
    // Serves until stop(), or SIGINT / SIGTERM when handleSignals. Then: no new connections, the requests in
    // flight answered (within drainTimeout), everything acknowledged committed, and every open trace stored.
    Status run();
    // From any thread.
    void stop();

    struct Counts {
        std::int64_t spans = 0, rejectedSpans = 0;  // received and stored, and left out as malformed
        std::int64_t requests = 0;                 // HTTP requests received
        std::int64_t traces = 0;                   // traces stored as requests (each once)
        std::int64_t storedAgain = 0;              // of them, stored again with a late span (each time)
    };
    Counts counts() const;

private:
    class Impl;
    explicit OtlpReceiver(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace tracelight
