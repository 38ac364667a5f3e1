// libFuzzer target for the live capture's request decoding (capture/OtlpHttp.h decodeBody), which every OTLP/HTTP
// body and every OTLP/gRPC message goes through before anything is stored: any bytes, in either encoding, gzipped
// or not, must give spans that pass the receiver's checks or a refusal of the protocol's kind (400, 413) — never a
// crash, a hang or a sanitizer report. The input's first byte chooses the encoding and whether it is a gzip body.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "tracelight/base/Time.h"
#include "tracelight/capture/OtlpHttp.h"

using namespace tracelight;

namespace {

[[noreturn]] void die(const char* what) {
    std::fprintf(stderr, "receive fuzzer: %s\n", what);
    std::abort();
}

bool isHex(const std::string& id, std::size_t digits) {
    if (id.size() != digits) return false;
    for (char c : id)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const auto kind = (data[0] & 1) ? capture::BodyKind::Json : capture::BodyKind::Protobuf;
    const std::string_view encoding = (data[0] & 2) ? "gzip" : "";
    const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
    constexpr std::size_t kLimit = 1 << 20;  // what a gzip body may unpack to
    auto decoded = capture::decodeBody(kind, encoding, body, kLimit);
    if (auto* reply = std::get_if<capture::HttpReply>(&decoded)) {
        if (reply->status != 400 && reply->status != 413) die("a refusal other than 400 or 413");
        if (reply->message.empty()) die("a refusal without a message");
        return 0;
    }
    const auto& received = std::get<capture::ReceivedSpans>(decoded);
    if (received.rejected < 0) die("a negative rejected count");
    if (received.rejected > 0 && received.rejectedMessage.empty()) die("rejected spans without a message");
    for (const RawSpan& s : received.spans) {
        // What the receiver promises of every span it hands to the store.
        if (!isHex(s.traceId, 32) || !isHex(s.spanId, 16)) die("a span kept with an id of the wrong form");
        if (!s.hasTimestamp || !isPlausibleTimestamp(s.startNs) || !isPlausibleTimestamp(s.endNs)) die("a span kept without usable times");
    }
    return 0;
}
