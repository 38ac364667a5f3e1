#include <iostream>

#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::cli {

int infoCommand(const Args& args) {
    std::string db;
    bool json = false;
    for (const auto& a : args) {
        if (a == "-h" || a == "--help") {
            std::cout << "Usage: tracelight-cli info DB [--json]\n\n"
                         "Counts of requests, events, segments, hosts and the requests in each period.\n"
                         "  --json      print {\"requests\", \"events\", \"segments\", \"hosts\", \"periods\": [...]}\n"
                         "  -h, --help  this help\n";
            return 0;
        }
        if (a == "--json") json = true;
        else if (!a.empty() && a[0] == '-') return usageError("info", "unknown option '" + a + "'");
        else if (db.empty()) db = a;
        else return usageError("info", "more than one database given");
    }
    if (db.empty()) return usageError("info", "no database given");
    auto store = TraceStore::open(db, TraceStore::Mode::ReadOnly);
    if (!store) return fail(store.message());
    auto info = store.value()->info();
    if (!info) return fail(info.message());
    if (json) {
        JsonWriter w;
        w.beginObject()
            .key("requests").value(info->requests)
            .key("events").value(info->events)
            .key("segments").value(info->segments)
            .key("hosts").value(info->hosts)
            .key("periods").beginArray();
        for (const auto& p : info->periods) w.beginObject().key("name").value(p.name).key("requests").value(p.requests).endObject();
        w.endArray().endObject();
        std::cout << w.text() << "\n";
    } else {
        std::cout << db << "\n  requests  " << info->requests << "\n  events    " << info->events << "\n  segments  "
                  << info->segments << "\n  hosts     " << info->hosts << "\n  periods\n";
        for (const auto& p : info->periods) std::cout << "    " << p.name << "  " << p.requests << " requests\n";
    }
    return 0;
}

} // namespace tracelight::cli
