#pragma once
// Deterministic generator of a small distributed storage service with ground truth, after
// Spectroscope's Ursa Minor (spectroscope-nsdi11, sections 5-7): an NFS-like front end, a metadata
// server, metadata storage nodes and data storage nodes. Each request is one NFS operation
// (READ, WRITE, CREATE, LOOKUP, GETATTR, READDIR) whose task moves between hosts as its RPCs go:
// client -> front end -> (metadata server -> metadata node) -> (data node) -> front end -> client.
// Cache hits and misses at the front end and the metadata server give different structures.
//
// Two periods are generated: a non-problem period (baseline) and a problem period in which one chosen
// change is injected. Every random value of a request is drawn in a fixed order whatever the change,
// so the same seed, period and index give the same request up to the change itself: the truth of which
// requests the change affected is exact.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tracelight::samples {

enum class StorageChange { None, MetadataOtherNode, SmallIo, Spin100us, Spin500us, Spin1ms, ExtraLocks };
std::string_view storageChangeName(StorageChange change);           // "none", "metadata-other-node", ...
std::optional<StorageChange> storageChangeFromName(std::string_view name);
const std::vector<std::string_view>& storageChangeNames();
std::int64_t storageSpinNs(StorageChange change);                    // the spin loop's length, 0 if none

enum class StorageOp : std::uint8_t { Read, Write, Create, Lookup, Getattr, Readdir };
std::string_view storageOpName(StorageOp op);                        // "READ", ...

enum class StoragePeriod : std::uint8_t { Baseline = 0, Problem = 1 };
std::string_view storagePeriodName(StoragePeriod period);            // "baseline", "problem"

struct StorageOptions {
    std::uint64_t seed = 1;
    std::int64_t requests = 1000;   // per period
    StorageChange change = StorageChange::None;
    std::int64_t startEpochUs = 1793491200000000;  // 2026-11-01T00:00:00Z; the problem period starts a day later
    std::int64_t meanGapUs = 2000;  // between request starts
    std::uint32_t clients = 24;
};

struct StorageEvent {
    std::uint16_t host;    // index into hostName()
    std::uint16_t event;   // index into eventNames()
    std::int64_t trueNs;   // true time, nanoseconds since the epoch
};

struct StorageRequest {
    StoragePeriod period = StoragePeriod::Baseline;
    std::int64_t index = 0;
    std::string name;                 // "baseline-17", "problem-17"
    StorageOp op = StorageOp::Read;
    std::int64_t size = 0;            // bytes, READ and WRITE only (0: no size attribute)
    std::uint32_t client = 0;         // 1-based, the "client" attribute is "c<client>"
    bool affected = false;            // the injected change altered this request (problem period only)
    std::vector<StorageEvent> events; // the one task "nfs", in order (seq = position + 1)
    std::int64_t latencyNs() const { return events.back().trueNs - events.front().trueNs; }
};

class StorageGenerator {
public:
    explicit StorageGenerator(StorageOptions options);

    // The request of this period and index; independent of generation order.
    StorageRequest generate(StoragePeriod period, std::int64_t index) const;

    const StorageOptions& options() const { return m_options; }
    std::string hostName(std::uint16_t host) const;
    std::int64_t clockOffsetNs(std::uint16_t host) const;  // local = true + offset
    static const std::vector<std::string_view>& eventNames();
    static constexpr std::string_view taskName() { return "nfs"; }

    // events-csv: the header, and a request's rows (local clocks, seq, attributes on its first row).
    static std::string csvHeader();  // "request,host,task,event,ts_us,seq,op,size,client\n"
    void appendCsv(const StorageRequest& request, std::string& out) const;
    // The ground-truth file: header "request,period,affected,change" and one row a request.
    static std::string truthHeader();
    void appendTruth(const StorageRequest& request, std::string& out) const;

private:
    StorageOptions m_options;
};

// Exact decimal microseconds of integer nanoseconds ("1700000000123456.789").
std::string formatNsAsUs(std::int64_t ns);

} // namespace tracelight::samples
