#include <CLI/CLI.hpp>
#include <iostream>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

namespace {

struct InfoArgs {
    std::string db;
    bool json = false;
    bool check = false;
};

int runInfo(const InfoArgs& args) {
    auto store = openDatabase(args.db, TraceStore::Mode::ReadOnly);
    if (!store) return fail(store.message());
    if (args.check)
        if (Status s = store.value()->quickCheck(); !s) return fail(s.message());
    auto info = store.value()->info();
    if (!info) return fail(info.message());
    if (args.json) {
        JsonWriter w;
        w.beginObject()
            .key("requests").value(info->requests)
            .key("events").value(info->events)
            .key("segments").value(info->segments)
            .key("hosts").value(info->hosts)
            .key("spans").value(info->spans)
            .key("periods").beginArray();
        for (const auto& p : info->periods) w.beginObject().key("name").value(p.name).key("requests").value(p.requests).endObject();
        w.endArray().endObject();
        std::cout << w.text() << "\n";
    } else {
        std::cout << args.db << "\n  requests  " << info->requests << "\n  events    " << info->events << "\n  segments  "
                  << info->segments << "\n  hosts     " << info->hosts << "\n  spans     " << info->spans << "\n  periods\n";
        for (const auto& p : info->periods) std::cout << "    " << p.name << "  " << p.requests << " requests\n";
    }
    return 0;
}

} // namespace

Command addInfoCommand(CLI::App& program) {
    auto args = std::make_shared<InfoArgs>();
    auto* cmd = program.add_subcommand("info", "counts of requests, events, segments, hosts, spans and periods");
    addDatabaseArgument(*cmd, args->db);
    addJsonFlag(*cmd, args->json, "print {\"requests\", \"events\", \"segments\", \"hosts\", \"spans\", \"periods\": [{\"name\", \"requests\"}]}");
    cmd->add_flag("--check", args->check, "also check every page of the file (PRAGMA quick_check; reads all of it)");
    cmd->footer("Opens DB read-only: works on read-only files and directories.");
    return {cmd, [args] { return runInfo(*args); }};
}

} // namespace tracelight::cli
