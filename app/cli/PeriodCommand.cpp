// tracelight-cli period DB list|add|rename|delete: periods as named sets of requests.
#include <CLI/CLI.hpp>
#include <ctime>
#include <iostream>

#include "tracelight/base/Time.h"
#include "Commands.h"
#include "tracelight/base/Json.h"
#include "tracelight/store/TraceStore.h"
#include "tracelight/store/Periods.h"

namespace tracelight::cli {

namespace {

struct PeriodArgs {
    std::string db;
    bool json = false;
    std::string name, newName, from, to, where;
};

// A time as µs since the epoch (digits, decimals kept to the ns) or UTC ISO-8601
// (YYYY-MM-DDTHH:MM:SS[.ffffff][Z]); ns out, refused past the 64-bit nanosecond range.
bool parseTime(const std::string& text, std::int64_t& ns) {
    if (text.empty()) return false;
    if (text.find_first_not_of("0123456789.") == std::string::npos) {
        const auto parsed = parseMicroseconds(text);
        if (parsed) ns = *parsed;
        return parsed.has_value();
    }
    std::tm tm{};
    const char* rest = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest) return false;
    std::int64_t micros = 0;
    if (*rest == '.') {
        int digits = 0;
        for (++rest; *rest >= '0' && *rest <= '9'; ++rest)
            if (digits++ < 6) micros = micros * 10 + (*rest - '0');
        if (digits == 0) return false;
        for (; digits < 6; ++digits) micros *= 10;
    }
    if (*rest == 'Z') ++rest;
    if (*rest) return false;
    ns = (static_cast<std::int64_t>(timegm(&tm)) * 1000000 + micros) * 1000;
    return true;
}

int runPeriod(const PeriodArgs& args, const std::string& action) {
    auto store = openDatabase(args.db, action == "list" ? TraceStore::Mode::ReadOnly : TraceStore::Mode::ReadWrite);
    if (!store) return fail(store.message());
    TraceStore& s = *store.value();
    if (action == "list") {
        const auto periods = listPeriods(s);
        if (args.json) {
            JsonWriter w;
            w.beginArray();
            for (const auto& p : periods)
                w.beginObject().key("name").value(p.name).key("requests").value(p.requests).key("definition").value(p.definition).endObject();
            w.endArray();
            std::cout << w.text() << "\n";
        } else {
            for (const auto& p : periods) std::cout << p.name << "  " << p.requests << " requests  " << p.definition << "\n";
        }
        return 0;
    }
    if (action == "add") {
        Result<std::int64_t> n = Status::error("");
        if (!args.where.empty()) {
            if (!args.from.empty() || !args.to.empty()) return fail(args.db + ": period add: give --where or --from/--to, not both");
            n = addPeriodWhere(s, args.name, args.where);
        } else {
            std::int64_t from = 0, to = 0;
            if (!parseTime(args.from, from)) return fail(args.db + ": period add: bad --from time '" + args.from + "' (UTC ISO-8601 or µs)");
            if (!parseTime(args.to, to)) return fail(args.db + ": period add: bad --to time '" + args.to + "' (UTC ISO-8601 or µs)");
            n = addPeriodByTime(s, args.name, from, to);
        }
        if (!n) return fail(args.db + ": " + n.message());
        std::cerr << "period '" << args.name << "': " << n.value() << " requests\n";
        return 0;
    }
    if (action == "rename") {
        if (Status st = renamePeriod(s, args.name, args.newName); !st) return fail(args.db + ": " + st.message());
        return 0;
    }
    if (Status st = deletePeriod(s, args.name); !st) return fail(args.db + ": " + st.message());
    return 0;
}

} // namespace

Command addPeriodCommand(CLI::App& program) {
    auto args = std::make_shared<PeriodArgs>();
    auto action = std::make_shared<std::string>();
    auto* cmd = program.add_subcommand("period", "periods: named sets of requests (list, add, rename, delete)");
    addDatabaseArgument(*cmd, args->db);
    cmd->require_subcommand(1);
    auto* list = cmd->add_subcommand("list", "list the periods");
    addJsonFlag(*list, args->json, "JSON output: [{name, requests, definition}]");
    auto* add = cmd->add_subcommand("add", "define a period by time range or attribute predicate");
    add->add_option("NAME", args->name, "period name")->required();
    add->add_option("--from", args->from, "start (inclusive), UTC ISO-8601 or µs");
    add->add_option("--to", args->to, "end (exclusive), UTC ISO-8601 or µs");
    add->add_option("--where", args->where, "'ATTR OP VALUE', OP one of = != < >");
    auto* rename = cmd->add_subcommand("rename", "rename a period");
    rename->add_option("OLD", args->name)->required();
    rename->add_option("NEW", args->newName)->required();
    auto* del = cmd->add_subcommand("delete", "delete a period (never its requests)");
    del->add_option("NAME", args->name)->required();
    for (auto* sub : {list, add, rename, del}) sub->callback([action, sub] { *action = sub->get_name(); });
    return {cmd, [args, action] { return runPeriod(*args, *action); }};
}

} // namespace tracelight::cli
