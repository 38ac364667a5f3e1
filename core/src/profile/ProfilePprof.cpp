// pprof export: the profile as a gzipped perftools.profiles.Profile (profile.proto from Debian's
// golang-github-google-pprof-dev), built with the protobuf library so that `pprof` and
// `protoc --decode perftools.profiles.Profile profile.proto` read it.
#include <zlib.h>

#include <cmath>
#include <unordered_map>

#include "profile.pb.h"
#include "tracelight/profile/Profile.h"

namespace tracelight {

namespace {

// gzip (not raw zlib): pprof reads both, but gunzip and other tools only the former.
Result<std::string> gzip(const std::string& data) {
    z_stream z{};
    constexpr int kGzipWindow = 15 + 16;
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return Status::error("cannot start gzip");
    std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) return Status::error("cannot gzip the profile");
    return out;
}

} // namespace

Result<std::string> profilePprof(const ProfileSet& set, std::size_t g) {
    perftools::profiles::Profile p;
    std::unordered_map<std::string, std::int64_t> strings;
    auto str = [&](const std::string& s) -> std::int64_t {
        auto [it, fresh] = strings.emplace(s, static_cast<std::int64_t>(p.string_table_size()));
        if (fresh) p.add_string_table(s);
        return it->second;
    };
    str("");  // string_table[0] must be empty
    auto* type = p.add_sample_type();
    type->set_type(str("critical_time"));
    type->set_unit(str("nanoseconds"));
    p.mutable_period_type()->set_type(type->type());
    p.mutable_period_type()->set_unit(type->unit());
    p.set_period(1);
    p.add_comment(str("mean critical time per request over " + std::to_string(set.groups[g].requests) +
                      " requests (Tracelight critical-path profile)"));

    // A function per distinct frame name, a location per frame: the same operation under two callers
    // is one function in pprof's views, as in a CPU profile.
    std::unordered_map<std::string, std::uint64_t> functionOf;
    for (std::size_t f = 0; f < set.frames.size(); ++f) {
        const auto& frame = set.frames[f];
        auto [it, fresh] = functionOf.emplace(frame.name, functionOf.size() + 1);
        if (fresh) {
            auto* fn = p.add_function();
            fn->set_id(it->second);
            fn->set_name(str(frame.name));
            fn->set_system_name(fn->name());
            fn->set_filename(str(frameKindName(frame.kind)));
        }
        auto* location = p.add_location();
        location->set_id(f + 1);
        location->add_line()->set_function_id(it->second);
    }
    const std::int64_t kindKey = str("kind");
    for (std::size_t f = 0; f < set.frames.size(); ++f) {
        const auto self = static_cast<std::int64_t>(std::llround(set.meanSelfNs(g, f)));
        if (self <= 0) continue;
        auto* sample = p.add_sample();
        for (std::int64_t x = static_cast<std::int64_t>(f); x >= 0; x = set.frames[static_cast<std::size_t>(x)].parent)
            sample->add_location_id(static_cast<std::uint64_t>(x) + 1);  // leaf first
        sample->add_value(self);
        auto* label = sample->add_label();
        label->set_key(kindKey);
        label->set_str(str(frameKindName(set.frames[f].kind)));
    }
    std::string bytes;
    if (!p.SerializeToString(&bytes)) return Status::error("cannot encode the pprof profile");
    return gzip(bytes);
}

} // namespace tracelight
