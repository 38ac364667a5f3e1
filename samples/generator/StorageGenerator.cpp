#include "StorageGenerator.h"

#include "generator/SplitMix.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

namespace tracelight::samples {

namespace {

enum Event : std::uint16_t {
    CALL, FE_RECV, FE_READ, FE_WRITE, FE_CREATE, FE_LOOKUP, FE_GETATTR, FE_READDIR, FE_CACHE_HIT, FE_CACHE_MISS,
    MDS_RECV, MDS_CACHE_HIT, MDS_CACHE_MISS, MD_READ_RECV, MD_READ_DONE, MDS_READ_DONE, MDS_REPLY, FE_MDS_DONE,
    FE_DATA_HIT, FE_DATA_MISS, RD_RECV, RD_DONE, FE_DATA_DONE, WR_RECV, RMW_READ, RMW_MERGE, WR_COMMIT,
    MDS_UPDATE, MDS_CREATE, LOCK_ACQUIRE, LOCK_RELEASE, MD_WR_RECV, MD_WR_COMMIT, MDS_WR_DONE, FE_ATTR_DEFER,
    MDS_COMMIT_REPLY, FE_COMMIT_DONE, FE_REPLY, REPLY_RECV
};

// Hosts: two front ends, one metadata server, three metadata storage nodes, four data storage nodes, then clients.
constexpr std::uint16_t kFrontEnds = 2, kMetadataNodes = 3, kDataNodes = 4;
constexpr std::uint16_t kFirstFe = 0, kMds = kFirstFe + kFrontEnds, kFirstMd = kMds + 1,
                        kFirstData = kFirstMd + kMetadataNodes, kFirstClient = kFirstData + kDataNodes;

constexpr std::int64_t kBlockBytes = 65536;  // the data nodes' block: a smaller write is a read-modify-write

class Random {
public:
    explicit Random(std::uint64_t seed) : m_engine(splitmix(seed)) {}
    double uniform() { return double(m_engine() >> 11) * (1.0 / 9007199254740992.0); }
    std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(uniform() * n) % n; }
    // A positive duration around meanUs (the lognormal's mean), in ns, at least 1 us.
    std::int64_t around(double meanUs, double sigma) {
        // Box-Muller from two uniforms: the same stream on every standard library.
        const double u1 = std::max(uniform(), 1e-300), u2 = uniform();
        const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
        return std::max<std::int64_t>(1000, std::llround(1000.0 * meanUs * std::exp(sigma * z - sigma * sigma / 2)));
    }

private:
    std::mt19937_64 m_engine;
};

// Every random value of a request, drawn in one fixed order whatever the operation and the change.
struct Draws {
    double opU, feCacheU, mdsCacheU, dataCacheU, flushU, smallU, redirectU;
    std::uint32_t client, fe, mdNode, dataNode, otherNode, sizeIndex, smallIndex, extraLocks;
    std::int64_t jitterNs;
    std::array<std::int64_t, 2> net;   // client -> front end, front end -> client
    std::array<std::int64_t, 10> hop;  // inside the data centre
    std::int64_t decode, feCache, mdsLookup, mdRead, mdsWork, dataRead, dataWrite, rmwRead, rmwMerge, mdWrite,
        otherWrite, lock, release, defer, reply;
    std::array<std::int64_t, 3> extraLock, extraHold;  // prefetching's lock waits and database calls
};

Draws draw(Random& rnd, std::uint32_t clients) {
    Draws d{};
    d.opU = rnd.uniform();
    d.feCacheU = rnd.uniform();
    d.mdsCacheU = rnd.uniform();
    d.dataCacheU = rnd.uniform();
    d.flushU = rnd.uniform();
    d.smallU = rnd.uniform();
    d.redirectU = rnd.uniform();
    d.client = rnd.below(clients);
    d.fe = rnd.below(kFrontEnds);
    d.mdNode = rnd.below(kMetadataNodes);
    d.dataNode = rnd.below(kDataNodes);
    d.otherNode = rnd.below(kDataNodes);
    d.sizeIndex = rnd.below(5);
    d.smallIndex = rnd.below(4);
    d.extraLocks = 1 + rnd.below(3);
    d.jitterNs = static_cast<std::int64_t>(rnd.uniform() * 1e6);
    for (auto& n : d.net) n = rnd.around(120, 0.3);
    for (auto& h : d.hop) h = rnd.around(60, 0.3);
    d.decode = rnd.around(20, 0.4);
    d.feCache = rnd.around(8, 0.4);
    d.mdsLookup = rnd.around(30, 0.4);
    d.mdRead = rnd.around(2500, 0.5);
    d.mdsWork = rnd.around(25, 0.4);
    d.dataRead = rnd.around(1500, 0.4);
    d.dataWrite = rnd.around(600, 0.25);
    d.rmwRead = rnd.around(2000, 0.4);
    d.rmwMerge = rnd.around(40, 0.3);
    d.mdWrite = rnd.around(500, 0.25);
    d.otherWrite = rnd.around(700, 0.25);
    d.lock = rnd.around(10, 0.5);
    d.release = rnd.around(6, 0.4);
    for (auto& l : d.extraLock) l = rnd.around(12, 0.5);
    for (auto& h : d.extraHold) h = rnd.around(40, 0.4);
    d.defer = rnd.around(5, 0.4);
    d.reply = rnd.around(15, 0.4);
    return d;
}

constexpr std::int64_t kSizes[] = {65536, 131072, 262144, 524288, 1048576};
constexpr std::int64_t kSmallSizes[] = {4096, 8192, 16384, 32768};

struct Builder {
    StorageRequest& r;
    std::int64_t t;
    int hopIndex = 0;
    void at(std::uint16_t host, Event e) { r.events.push_back({host, e, t}); }
    void after(std::int64_t ns, std::uint16_t host, Event e) { t += ns; at(host, e); }
};

} // namespace

std::string_view storageChangeName(StorageChange change) { return storageChangeNames()[static_cast<int>(change)]; }

const std::vector<std::string_view>& storageChangeNames() {
    static const std::vector<std::string_view> names = {"none",       "metadata-other-node", "small-io", "spin-100us",
                                                        "spin-500us", "spin-1ms",            "extra-locks"};
    return names;
}

std::optional<StorageChange> storageChangeFromName(std::string_view name) {
    const auto& names = storageChangeNames();
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return static_cast<StorageChange>(i);
    return std::nullopt;
}

std::int64_t storageSpinNs(StorageChange change) {
    switch (change) {
    case StorageChange::Spin100us: return 100000;
    case StorageChange::Spin500us: return 500000;
    case StorageChange::Spin1ms: return 1000000;
    default: return 0;
    }
}

std::string_view storageOpName(StorageOp op) {
    static constexpr std::string_view names[] = {"READ", "WRITE", "CREATE", "LOOKUP", "GETATTR", "READDIR"};
    return names[static_cast<int>(op)];
}

std::string_view storagePeriodName(StoragePeriod period) {
    return period == StoragePeriod::Baseline ? "baseline" : "problem";
}

const std::vector<std::string_view>& StorageGenerator::eventNames() {
    static const std::vector<std::string_view> names = {
        "CALL", "FE_RECV", "FE_READ", "FE_WRITE", "FE_CREATE", "FE_LOOKUP", "FE_GETATTR", "FE_READDIR", "FE_CACHE_HIT",
        "FE_CACHE_MISS", "MDS_RECV", "MDS_CACHE_HIT", "MDS_CACHE_MISS", "MD_READ_RECV", "MD_READ_DONE", "MDS_READ_DONE",
        "MDS_REPLY", "FE_MDS_DONE", "FE_DATA_HIT", "FE_DATA_MISS", "RD_RECV", "RD_DONE", "FE_DATA_DONE", "WR_RECV",
        "RMW_READ", "RMW_MERGE", "WR_COMMIT", "MDS_UPDATE", "MDS_CREATE", "LOCK_ACQUIRE", "LOCK_RELEASE", "MD_WR_RECV",
        "MD_WR_COMMIT", "MDS_WR_DONE", "FE_ATTR_DEFER", "MDS_COMMIT_REPLY", "FE_COMMIT_DONE", "FE_REPLY",
        "REPLY_RECV"};
    return names;
}

StorageGenerator::StorageGenerator(StorageOptions options) : m_options(options) {
    m_options.clients = std::max<std::uint32_t>(1, m_options.clients);
    m_options.meanGapUs = std::max<std::int64_t>(1, m_options.meanGapUs);
}

std::string StorageGenerator::hostName(std::uint16_t host) const {
    if (host < kMds) return "fe-" + std::to_string(host - kFirstFe + 1);
    if (host == kMds) return "mds-1";
    if (host < kFirstData) return "md-" + std::to_string(host - kFirstMd + 1);
    if (host < kFirstClient) return "data-" + std::to_string(host - kFirstData + 1);
    return "client-" + std::to_string(host - kFirstClient + 1);
}

std::int64_t StorageGenerator::clockOffsetNs(std::uint16_t host) const {
    // Clients drift up to +-5 s, servers up to +-2 s (to the nanosecond).
    const std::uint64_t h = splitmix(m_options.seed * 0x100000001B3ull + host + 0x5707A6E);
    const double unit = double(h >> 11) / double(1ull << 53) * 2.0 - 1.0;
    return std::llround(unit * (host >= kFirstClient ? 5e9 : 2e9));
}

StorageRequest StorageGenerator::generate(StoragePeriod period, std::int64_t index) const {
    StorageRequest r;
    r.period = period;
    r.index = index;
    r.name = std::string(storagePeriodName(period)) + "-" + std::to_string(index + 1);
    const auto p = static_cast<std::uint64_t>(period);
    Random rnd(m_options.seed * 0x9E3779B97F4A7C15ull + p * 0xD6E8FEB86659FD93ull + static_cast<std::uint64_t>(index));
    const Draws d = draw(rnd, m_options.clients);
    const StorageChange change = period == StoragePeriod::Problem ? m_options.change : StorageChange::None;
    const std::int64_t spin = storageSpinNs(change);

    // The operation mix of a file server: reads and attribute look-ups dominate.
    static constexpr double kMix[] = {0.30, 0.20, 0.08, 0.17, 0.17, 0.08};
    double u = d.opU;
    int op = 0;
    while (op < 5 && u >= kMix[op]) u -= kMix[op++];
    r.op = static_cast<StorageOp>(op);
    r.client = d.client + 1;
    if (r.op == StorageOp::Read) r.size = kSizes[d.sizeIndex];
    if (r.op == StorageOp::Write)
        r.size = change == StorageChange::SmallIo && d.smallU < 0.5 ? kSmallSizes[d.smallIndex] : kSizes[d.sizeIndex];

    const std::uint16_t client = static_cast<std::uint16_t>(kFirstClient + d.client);
    const std::uint16_t fe = static_cast<std::uint16_t>(kFirstFe + d.fe);
    const std::uint16_t md = static_cast<std::uint16_t>(kFirstMd + d.mdNode);
    const std::uint16_t data = static_cast<std::uint16_t>(kFirstData + d.dataNode);
    const std::uint16_t other = static_cast<std::uint16_t>(kFirstData + d.otherNode);

    const std::int64_t t0 = 86400000000000ll * static_cast<std::int64_t>(p) +
                            1000 * (m_options.startEpochUs + index * m_options.meanGapUs) + d.jitterNs;
    Builder b{r, t0};
    r.events.reserve(32);
    auto hop = [&] { return d.hop[static_cast<std::size_t>(b.hopIndex++) % d.hop.size()]; };

    // The metadata server reads what its cache lacks from a metadata storage node.
    auto mdsLookup = [&](double hitRate) {
        if (d.mdsCacheU < hitRate) {
            b.after(d.mdsLookup, kMds, MDS_CACHE_HIT);
        } else {
            b.after(d.mdsLookup, kMds, MDS_CACHE_MISS);
            b.after(hop(), md, MD_READ_RECV);
            b.after(d.mdRead, md, MD_READ_DONE);
            b.after(hop(), kMds, MDS_READ_DONE);
        }
    };
    // extra-locks: server-driven metadata prefetching on every metadata-server access, each a few
    // database calls under a lock (the paper's linux-build case: "an abnormally large number of lock
    // acquire/release accesses within the metadata server").
    auto prefetch = [&] {
        if (change != StorageChange::ExtraLocks) return;
        for (std::uint32_t k = 0; k < d.extraLocks; ++k) {
            b.after(d.extraLock[k], kMds, LOCK_ACQUIRE);
            b.after(d.extraHold[k], kMds, LOCK_RELEASE);
        }
        r.affected = true;
    };
    auto metadataFetch = [&](double mdsHitRate) {
        b.after(hop(), kMds, MDS_RECV);
        mdsLookup(mdsHitRate);
        prefetch();
        b.after(d.mdsWork, kMds, MDS_REPLY);
        b.after(hop(), fe, FE_MDS_DONE);
    };
    // Front-end attribute / layout cache; a miss asks the metadata server.
    auto feAttributes = [&](double hitRate) {
        if (d.feCacheU < hitRate) {
            b.after(d.feCache, fe, FE_CACHE_HIT);
        } else {
            b.after(d.feCache, fe, FE_CACHE_MISS);
            metadataFetch(0.6);
        }
    };
    // A metadata update under the metadata server's lock, written to a metadata storage node.
    auto metadataWrite = [&](Event begin, bool lookupFirst) {
        b.after(hop(), kMds, begin);
        if (lookupFirst) mdsLookup(0.7);
        b.after(d.lock, kMds, LOCK_ACQUIRE);
        if (change == StorageChange::MetadataOtherNode && d.redirectU < 0.85) {
            // Most metadata writes go to a data storage node instead (a lost configuration falls back
            // to the default distribution), which takes them through its own write path.
            b.after(hop(), other, WR_RECV);
            b.after(d.otherWrite + spin, other, WR_COMMIT);
            r.affected = true;
        } else {
            b.after(hop(), md, MD_WR_RECV);
            b.after(d.mdWrite + spin, md, MD_WR_COMMIT);
            if (spin > 0) r.affected = true;
        }
        b.after(hop(), kMds, MDS_WR_DONE);
        b.after(d.release, kMds, LOCK_RELEASE);
        prefetch();
        b.after(d.mdsWork, kMds, MDS_COMMIT_REPLY);
        b.after(hop(), fe, FE_COMMIT_DONE);
    };

    b.at(client, CALL);
    b.after(d.net[0], fe, FE_RECV);
    switch (r.op) {
    case StorageOp::Lookup:
        b.after(d.decode, fe, FE_LOOKUP);
        feAttributes(0.5);
        break;
    case StorageOp::Getattr:
        b.after(d.decode, fe, FE_GETATTR);
        feAttributes(0.6);
        break;
    case StorageOp::Readdir:
        b.after(d.decode, fe, FE_READDIR);
        metadataFetch(0.5);
        break;
    case StorageOp::Read:
        b.after(d.decode, fe, FE_READ);
        feAttributes(0.7);
        if (d.dataCacheU < 0.35) {
            b.after(d.feCache, fe, FE_DATA_HIT);
        } else {
            b.after(d.feCache, fe, FE_DATA_MISS);
            b.after(hop(), data, RD_RECV);
            b.after(d.dataRead + r.size * 1000 / 400, data, RD_DONE);  // 400 bytes/us off the disk
            b.after(hop(), fe, FE_DATA_DONE);
        }
        break;
    case StorageOp::Write:
        b.after(d.decode, fe, FE_WRITE);
        feAttributes(0.7);
        b.after(hop(), data, WR_RECV);
        if (r.size < kBlockBytes) {
            // A partial block: read the old block, merge, then write the whole block.
            b.after(d.rmwRead, data, RMW_READ);
            b.after(d.rmwMerge, data, RMW_MERGE);
            r.affected = true;
        }
        b.after(d.dataWrite + std::max(r.size, kBlockBytes) * 1000 / 800 + spin, data, WR_COMMIT);
        if (spin > 0) r.affected = true;
        b.after(hop(), fe, FE_DATA_DONE);
        if (d.flushU < 0.4) metadataWrite(MDS_UPDATE, false);  // size and mtime written through
        else b.after(d.defer, fe, FE_ATTR_DEFER);             // kept at the front end for now
        break;
    case StorageOp::Create:
        b.after(d.decode, fe, FE_CREATE);
        metadataWrite(MDS_CREATE, true);
        break;
    }
    b.after(d.reply, fe, FE_REPLY);
    b.after(d.net[1], client, REPLY_RECV);
    return r;
}

std::string formatNsAsUs(std::int64_t ns) {
    const bool negative = ns < 0;
    const std::uint64_t a = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    std::string frac = std::to_string(a % 1000);
    frac.insert(0, 3 - frac.size(), '0');
    return (negative ? "-" : "") + std::to_string(a / 1000) + "." + frac;
}

std::string StorageGenerator::csvHeader() { return "request,host,task,event,ts_us,seq,op,size,client\n"; }

void StorageGenerator::appendCsv(const StorageRequest& r, std::string& out) const {
    const auto& names = eventNames();
    for (std::size_t k = 0; k < r.events.size(); ++k) {
        const StorageEvent& e = r.events[k];
        out += r.name;
        out += ',';
        out += hostName(e.host);
        out += ',';
        out += taskName();
        out += ',';
        out += names[e.event];
        out += ',';
        out += formatNsAsUs(e.trueNs + clockOffsetNs(e.host));
        out += ',';
        out += std::to_string(k + 1);
        if (k == 0) {
            out += ',';
            out += storageOpName(r.op);
            out += ',';
            if (r.size > 0) out += std::to_string(r.size);
            out += ",c";
            out += std::to_string(r.client);
            out += '\n';
        } else {
            out += ",,,\n";
        }
    }
}

std::string StorageGenerator::truthHeader() { return "request,period,affected,change\n"; }

void StorageGenerator::appendTruth(const StorageRequest& r, std::string& out) const {
    out += r.name;
    out += ',';
    out += storagePeriodName(r.period);
    out += r.affected ? ",1," : ",0,";
    out += storageChangeName(m_options.change);  // the scenario's change, on every row
    out += '\n';
}

} // namespace tracelight::samples
