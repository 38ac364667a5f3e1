// host-activity: adds what ran on the hosts beside the traced requests (system tasks, compactions, GC, cron) and
// low-level work marked with a request's context to a database, for context and bursts to count.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <iterator>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/import/HostActivityFile.h"
#include "tracelight/store/HostActivityStore.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

namespace {

struct HostActivityArgs {
    std::string db;
    std::vector<std::string> inputs;
    bool json = false;
};

int runHostActivity(const HostActivityArgs& args) {
    // Every file is read whole before anything is written: a bad line stores nothing of any of them.
    std::vector<HostActivityInput> records;
    for (const std::string& input : args.inputs) {
        auto read = readHostActivityFile(input);
        if (!read) return fail(read.message());
        records.insert(records.end(), std::make_move_iterator(read->begin()), std::make_move_iterator(read->end()));
    }
    auto store = openDatabase(args.db, TraceStore::Mode::ReadWrite);
    if (!store) return fail(store.message());
    auto added = addHostActivity(*store.value(), records);
    if (!added) return fail(args.db + ": " + added.message());
    std::int64_t marked = 0;
    for (const auto& r : records) marked += r.request.empty() ? 0 : 1;
    const std::int64_t total = hostActivityCount(*store.value());
    if (args.json) {
        JsonWriter w;
        w.beginObject().key("added").value(added.value()).key("marked").value(marked).key("total").value(total).endObject();
        std::cout << w.text() << "\n";
    } else {
        std::printf("%s: %lld host-activity records added (%lld marked with a request), %lld in all\n", args.db.c_str(),
                    static_cast<long long>(added.value()), static_cast<long long>(marked), static_cast<long long>(total));
    }
    return 0;
}

} // namespace

Command addHostActivityCommand(CLI::App& program) {
    auto args = std::make_shared<HostActivityArgs>();
    auto* cmd = program.add_subcommand("host-activity", "add what else ran on the hosts (system tasks, GC, kernel work) to a database");
    cmd->add_option("--db", args->db, "the trace database (it must exist)")->required()->type_name("DB");
    addJsonFlag(*cmd, args->json, "print {\"added\", \"marked\", \"total\"}");
    cmd->add_option("INPUT", args->inputs, "host-activity files: CSV with a header, or JSON lines")->required();
    cmd->footer("A record: host, what, start_us (or start_ns), end_us / end_ns / duration_us / duration_ns, on the host's own\n"
                "clock; with request (and span), the request's own low-level work (docs/user/input-formats.md).\n"
                "A malformed line stores nothing and names the file and line.");
    return {cmd, [args] { return runHostActivity(*args); }};
}

} // namespace tracelight::cli
