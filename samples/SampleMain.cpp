// tracelight-sample: writes a generated page-load event log and its ground truth.
#include <filesystem>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <set>
#include <string>

#include "generator/PageLoadGenerator.h"
#include "generator/SplitMix.h"
#include "generator/StorageGenerator.h"
#include "tracelight/base/Json.h"
#include "tracelight/base/Time.h"

using namespace tracelight;
using namespace tracelight::samples;

namespace {

void usage(std::ostream& out) {
    out << "Usage: tracelight-sample [options] --out FILE\n"
           "Writes a deterministic page-load event log (events-csv or events-jsonl) with known ground truth.\n\n"
           "Options:\n"
           "  --requests N        number of page loads (default 1000)\n"
           "  --seed N            random seed (default 1)\n"
           "  --users N           distinct users (default: requests / 6, for repeat visits)\n"
           "  --format csv|jsonl  output format (default csv)\n"
           "  --no-seq            omit the seq column (rows are then written task by task)\n"
           "  --slow-feed-miss F  multiply the feed cache-miss fill time by F (an injected slow segment)\n"
           "  --truth FILE        write the true causal model as JSON\n"
           "  --request-truth FILE  write per-request truth (latency, critical path, slack) as JSON lines\n"
           "  --out FILE          the event log to write\n"
           "  --summary           print {\"requests\", \"events\", \"segments\", \"hosts\"} of what was written\n"
           "  --host-activity FILE  also write what else ran on the data-centre hosts (gc, compaction, cron) and\n"
           "                      low-level work marked with every fourth request, as a host-activity CSV\n"
           "  -h, --help          this help\n\n"
           "Storage service (--workload storage): an NFS-like front end, a metadata server, metadata and data\n"
           "storage nodes; a non-problem and a problem period with one injected change, and the truth of which\n"
           "requests it affected. Writes DIR/baseline.csv, DIR/problem.csv (events-csv) and DIR/truth.csv.\n"
           "  --workload pageload|storage  what to generate (default pageload)\n"
           "  --change NAME       none (default), metadata-other-node, small-io, spin-100us, spin-500us,\n"
           "                      spin-1ms, extra-locks\n"
           "  --requests N        requests per period (default 1000)\n"
           "  --out-dir DIR       the directory to write the three files into\n";
}

int runStorage(const StorageOptions& options, const std::string& dir, bool printSummary) {
    const StorageGenerator generator(options);
    std::error_code made;
    std::filesystem::create_directories(dir, made);
    if (made) { std::cerr << "tracelight-sample: cannot make " << dir << ": " << made.message() << "\n"; return 1; }
    const std::string truthPath = dir + "/truth.csv";
    std::FILE* truth = std::fopen(truthPath.c_str(), "wb");
    if (!truth) { std::cerr << "tracelight-sample: cannot write " << truthPath << "\n"; return 1; }
    std::string text = StorageGenerator::truthHeader();
    std::int64_t events = 0, affected = 0;
    for (StoragePeriod period : {StoragePeriod::Baseline, StoragePeriod::Problem}) {
        const std::string path = dir + "/" + std::string(storagePeriodName(period)) + ".csv";
        std::FILE* file = std::fopen(path.c_str(), "wb");
        if (!file) { std::cerr << "tracelight-sample: cannot write " << path << "\n"; std::fclose(truth); return 1; }
        std::string chunk = StorageGenerator::csvHeader();
        for (std::int64_t i = 0; i < options.requests; ++i) {
            const StorageRequest r = generator.generate(period, i);
            events += static_cast<std::int64_t>(r.events.size());
            affected += r.affected ? 1 : 0;
            generator.appendCsv(r, chunk);
            generator.appendTruth(r, text);
            if (chunk.size() > (1u << 20)) { std::fwrite(chunk.data(), 1, chunk.size(), file); chunk.clear(); }
            if (text.size() > (1u << 20)) { std::fwrite(text.data(), 1, text.size(), truth); text.clear(); }
        }
        std::fwrite(chunk.data(), 1, chunk.size(), file);
        if (std::fclose(file) != 0) { std::cerr << "tracelight-sample: error writing " << path << "\n"; std::fclose(truth); return 1; }
    }
    std::fwrite(text.data(), 1, text.size(), truth);
    if (std::fclose(truth) != 0) { std::cerr << "tracelight-sample: error writing " << truthPath << "\n"; return 1; }
    if (printSummary) {
        JsonWriter w;
        w.beginObject().key("requests").value(2 * options.requests).key("events").value(events)
            .key("affected").value(affected).key("change").value(std::string(storageChangeName(options.change))).endObject();
        std::cout << w.text() << "\n";
    }
    return 0;
}

void writeSegment(JsonWriter& w, const GenSegment& s) {
    w.beginObject()
        .key("task").value(PageLoadGenerator::taskNames()[s.task])
        .key("start").value(PageLoadGenerator::eventNames()[s.startEvent])
        .key("end").value(PageLoadGenerator::eventNames()[s.endEvent])
        .endObject();
}

void writeCsvField(std::string& line, std::string_view text) {
    if (text.find_first_of(",\"\n") == std::string_view::npos) {
        line += text;
        return;
    }
    line += '"';
    for (char c : text) {
        if (c == '"') line += '"';
        line += c;
    }
    line += '"';
}

// Host activity beside the page loads (docs/dev/sample-generator.md): on every data-centre host a gc pause every
// 1.5 to 2.5 s (20 to 80 ms), on the caches a compaction every 8 to 12 s (0.3 to 1.2 s), on the web servers a
// cron job at every whole minute (150 ms); each on its host's own clock. Deterministic in the seed.
void writeNonTracedActivity(std::FILE* out, const PageLoadGenerator& generator, std::uint64_t seed, const std::set<std::uint32_t>& hosts,
                            std::int64_t fromNs, std::int64_t toNs) {
    for (const std::uint32_t host : hosts) {
        const std::string name = generator.hostName(host);
        if (name.rfind("client-", 0) == 0) continue;
        const std::int64_t offset = generator.clockOffsetNs(host);
        auto write = [&](std::int64_t start, std::int64_t end, const char* what) {
            const std::string line = name + ',' + formatMicroseconds(start + offset) + ',' + formatMicroseconds(end + offset) + ',' + what + ",,\n";
            std::fwrite(line.data(), 1, line.size(), out);
        };
        std::uint64_t state = seed * 0xA24BAED4963EE407ull + host;
        auto uniform = [&](std::int64_t lo, std::int64_t hi) {  // in [lo, hi)
            state = splitmix(state);
            return lo + static_cast<std::int64_t>(state % static_cast<std::uint64_t>(hi - lo));
        };
        for (std::int64_t t = fromNs - uniform(0, 2'000'000'000); t < toNs; t += uniform(1'500'000'000, 2'500'000'000))
            write(t, t + uniform(20'000'000, 80'000'000), "gc");
        if (name.rfind("cache-", 0) == 0)
            for (std::int64_t t = fromNs - uniform(0, 10'000'000'000); t < toNs; t += uniform(8'000'000'000, 12'000'000'000))
                write(t, t + uniform(300'000'000, 1'200'000'000), "compaction");
        if (name.rfind("web-", 0) == 0)
            for (std::int64_t t = fromNs / 60'000'000'000 * 60'000'000'000; t < toNs; t += 60'000'000'000)
                if (t >= fromNs) write(t, t + 150'000'000, "cron:logrotate");
    }
}

// A request's low-level work, marked with its context (what vertical context injection recovers from a kernel
// trace): in each of its tasks' stretches of 1 ms or more between two events on one data-centre host, a read for
// the middle third of it, marked with the request and the task (its span).
void writeMarkedActivity(std::FILE* out, const PageLoadGenerator& generator, const GeneratedRequest& r) {
    const auto& tasks = PageLoadGenerator::taskNames();
    for (std::size_t k = 1; k < r.events.size(); ++k) {
        const GenEvent& a = r.events[k - 1];
        const GenEvent& b = r.events[k];
        if (a.task != b.task || a.host != b.host || b.trueNs - a.trueNs < 1'000'000) continue;  // stretches of 1 ms or more
        const std::string host = generator.hostName(a.host);
        if (host.rfind("client-", 0) == 0) continue;
        const std::int64_t third = (b.trueNs - a.trueNs) / 3, offset = generator.clockOffsetNs(a.host);
        const std::string line = host + ',' + formatMicroseconds(a.trueNs + third + offset) + ',' + formatMicroseconds(b.trueNs - third + offset) +
                                 ",syscall:read," + r.name + ',' + std::string(tasks[a.task]) + '\n';
        std::fwrite(line.data(), 1, line.size(), out);
    }
}

} // namespace

int main(int argc, char** argv) {
    GeneratorOptions options;
    std::string out, truthPath, requestTruthPath, hostActivityPath, format = "csv";
    bool withSeq = true;
    bool printSummary = false;
    std::string workload = "pageload", changeName = "none", outDir;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "tracelight-sample: " << arg << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        try {
            if (arg == "-h" || arg == "--help") { usage(std::cout); return 0; }
            else if (arg == "--requests") options.requests = std::stoll(value());
            else if (arg == "--seed") options.seed = std::stoull(value());
            else if (arg == "--users") options.users = std::stoll(value());
            else if (arg == "--format") format = value();
            else if (arg == "--no-seq") withSeq = false;
            else if (arg == "--slow-feed-miss") options.slowFeedMissFactor = std::stod(value());
            else if (arg == "--truth") truthPath = value();
            else if (arg == "--request-truth") requestTruthPath = value();
            else if (arg == "--out") out = value();
            else if (arg == "--summary") printSummary = true;
            else if (arg == "--host-activity") hostActivityPath = value();
            else if (arg == "--workload") workload = value();
            else if (arg == "--change") changeName = value();
            else if (arg == "--out-dir") outDir = value();
            else { std::cerr << "tracelight-sample: unknown option " << arg << "\n"; usage(std::cerr); return 2; }
        } catch (const std::exception&) {
            std::cerr << "tracelight-sample: " << arg << " needs a number\n";
            return 2;
        }
    }
    if (workload == "storage") {
        const auto change = storageChangeFromName(changeName);
        if (!change) { std::cerr << "tracelight-sample: unknown change " << changeName << "\n"; return 2; }
        if (outDir.empty() || options.requests <= 0) { usage(std::cerr); return 2; }
        StorageOptions storage;
        storage.seed = options.seed;
        storage.requests = options.requests;
        storage.change = *change;
        return runStorage(storage, outDir, printSummary);
    }
    if (workload != "pageload") { std::cerr << "tracelight-sample: unknown workload " << workload << "\n"; return 2; }
    if (changeName != "none" || !outDir.empty()) { std::cerr << "tracelight-sample: --change and --out-dir need --workload storage\n"; return 2; }
    if (out.empty() || options.requests <= 0 || (format != "csv" && format != "jsonl")) {
        usage(std::cerr);
        return 2;
    }

    PageLoadGenerator generator(options);
    std::FILE* file = std::fopen(out.c_str(), "wb");
    if (!file) { std::cerr << "tracelight-sample: cannot write " << out << "\n"; return 1; }
    std::FILE* requestTruth = requestTruthPath.empty() ? nullptr : std::fopen(requestTruthPath.c_str(), "wb");
    if (!requestTruthPath.empty() && !requestTruth) { std::cerr << "tracelight-sample: cannot write " << requestTruthPath << "\n"; return 1; }
    std::FILE* hostActivity = hostActivityPath.empty() ? nullptr : std::fopen(hostActivityPath.c_str(), "wb");
    if (!hostActivityPath.empty() && !hostActivity) { std::cerr << "tracelight-sample: cannot write " << hostActivityPath << "\n"; return 1; }
    if (hostActivity) std::fputs("host,start_us,end_us,what,request,span\n", hostActivity);
    std::int64_t firstTrueNs = std::numeric_limits<std::int64_t>::max(), lastTrueNs = std::numeric_limits<std::int64_t>::min();

    const auto& tasks = PageLoadGenerator::taskNames();
    const auto& events = PageLoadGenerator::eventNames();
    if (format == "csv") {
        // Attribute columns as the generator names them (every request has the same keys).
        std::string header = withSeq ? "request,host,task,event,ts_us,seq" : "request,host,task,event,ts_us";
        for (const auto& [key, value] : generator.generate(0).attributes) header += "," + key;
        std::fputs((header + "\n").c_str(), file);
    }
    std::string line;
    std::vector<int> order;
    std::int64_t totalEvents = 0, totalSegments = 0;
    std::set<std::uint32_t> hostsUsed;
    for (std::int64_t i = 0; i < options.requests; ++i) {
        const GeneratedRequest r = generator.generate(i);
        totalEvents += static_cast<std::int64_t>(r.events.size());
        totalSegments += static_cast<std::int64_t>(r.segments.size());
        for (const auto& e : r.events) {
            hostsUsed.insert(e.host);
            firstTrueNs = std::min(firstTrueNs, e.trueNs);
            lastTrueNs = std::max(lastTrueNs, e.trueNs);
        }
        if (hostActivity && i % 4 == 0) writeMarkedActivity(hostActivity, generator, r);
        // With seq, rows are merged by true time as a log collector would; without it, task by task.
        order.resize(r.events.size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
        if (withSeq)
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return r.events[a].trueNs < r.events[b].trueNs; });
        bool first = true;
        for (int k : order) {
            const GenEvent& e = r.events[k];
            const std::int64_t local = e.trueNs + generator.clockOffsetNs(e.host);  // ns
            line.clear();
            if (format == "csv") {
                line += r.name + ',' + generator.hostName(e.host) + ',' + std::string(tasks[e.task]) + ',' +
                        std::string(events[e.event]) + ',' + formatMicroseconds(local);  // exact, to the ns
                if (withSeq) line += ',' + std::to_string(e.seq);
                for (const auto& [key, value] : r.attributes) {
                    line += ',';
                    if (first) writeCsvField(line, value);
                }
                line += '\n';
            } else {
                JsonWriter w;
                w.beginObject().key("request").value(r.name).key("host").value(generator.hostName(e.host))
                    .key("task").value(tasks[e.task]).key("event").value(events[e.event])
                    .key("ts_ns").value(local);  // an integer: exact, where a double of us would not be
                if (withSeq) w.key("seq").value(static_cast<int>(e.seq));
                if (first) {
                    w.key("attrs").beginObject();
                    for (const auto& [key, value] : r.attributes) w.key(key).value(value);
                    w.endObject();
                }
                w.endObject();
                line = w.text() + '\n';
            }
            first = false;
            std::fwrite(line.data(), 1, line.size(), file);
        }
        if (requestTruth) {
            JsonWriter w;
            w.beginObject().key("request").value(r.name).key("latency_us").value(nsToUs(r.latencyNs))
                .key("blind_us").value(nsToUs(r.blindNs)).key("critical_path").beginArray();
            for (int s : r.criticalPath) writeSegment(w, r.segments[s]);
            w.endArray().key("slack").beginArray();
            for (std::size_t s = 0; s < r.segments.size(); ++s) {
                w.beginObject().key("segment");
                writeSegment(w, r.segments[s]);
                w.key("duration_us").value(nsToUs(r.segments[s].durationNs())).key("slack_us").value(nsToUs(r.slackNs[s])).endObject();
            }
            w.endArray().endObject();
            std::fputs((w.text() + "\n").c_str(), requestTruth);
        }
    }
    if (std::fclose(file) != 0) { std::cerr << "tracelight-sample: error writing " << out << "\n"; return 1; }
    if (requestTruth) std::fclose(requestTruth);
    if (hostActivity) {
        if (!hostsUsed.empty()) writeNonTracedActivity(hostActivity, generator, options.seed, hostsUsed, firstTrueNs, lastTrueNs);
        if (std::fclose(hostActivity) != 0) { std::cerr << "tracelight-sample: error writing " << hostActivityPath << "\n"; return 1; }
    }

    if (printSummary) {
        JsonWriter w;
        w.beginObject().key("requests").value(options.requests).key("events").value(totalEvents)
            .key("segments").value(totalSegments).key("hosts").value(static_cast<std::int64_t>(hostsUsed.size())).endObject();
        std::cout << w.text() << "\n";
    }
    if (!truthPath.empty()) {
        const TrueModel model = PageLoadGenerator::trueModel();
        JsonWriter w(true);
        w.beginObject().key("segment_types").beginArray();
        for (const auto& t : model.segmentTypes) w.value(t);
        w.endArray().key("happens_before").beginArray();
        for (const auto& [a, b] : model.happensBefore) w.beginArray().value(a).value(b).endArray();
        w.endArray().key("mutual_exclusion").beginArray();
        for (const auto& [a, b] : model.mutualExclusion) w.beginArray().value(a).value(b).endArray();
        w.endArray().key("pipelines").beginArray();
        for (const auto& p : model.pipelines) {
            w.beginObject().key("producers").beginArray();
            for (const auto& s : p.producers) w.value(s);
            w.endArray().key("consumers").beginArray();
            for (const auto& s : p.consumers) w.value(s);
            w.endArray().endObject();
        }
        w.endArray().endObject();
        std::ofstream(truthPath) << w.text() << "\n";
    }
    return 0;
}
