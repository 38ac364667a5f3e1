#include "tracelight/store/RequestTable.h"

#include <cctype>

#include <algorithm>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "store/Sqlite.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

bool RequestTable::inPeriod(std::size_t row, std::uint32_t period) const {
    if (row + 1 >= memberBegin.size()) return row < periodIndex.size() && periodIndex[row] == period;
    for (std::uint32_t k = memberBegin[row]; k < memberBegin[row + 1]; ++k)
        if (memberPeriod[k] == period) return true;
    return false;
}

std::string RequestTable::periodList(std::size_t row) const {
    if (row + 1 >= memberBegin.size() || memberBegin[row] == memberBegin[row + 1])
        return row < periodIndex.size() ? periodNames[periodIndex[row]] : std::string();
    std::string out;
    for (std::uint32_t k = memberBegin[row]; k < memberBegin[row + 1]; ++k) {
        if (!out.empty()) out += ", ";
        out += periodNames[memberPeriod[k]];
    }
    return out;
}

namespace {

// The span requests' summaries (request_spans) into the table, and the operation each is known by.
Status loadSpanSummaries(sqlite3* db, const std::string& path, const std::unordered_map<std::int64_t, std::uint32_t>& rowOf,
                         RequestTable& table) {
    const std::size_t n = table.ids.size();
    constexpr auto kNone = RequestTable::kNoLabel;
    table.spanCount.assign(n, 0);
    table.errorCount.assign(n, 0);
    for (auto* column : {&table.service, &table.entryOperation, &table.callService, &table.callOperation, &table.operation})
        column->assign(n, kNone);
    std::unordered_map<std::int64_t, std::uint32_t> slots;
    sqlite::Statement text(db, "SELECT text FROM label_text WHERE id=?1");
    auto slotOf = [&](sqlite::Statement& q, int column) -> std::uint32_t {
        if (q.isNull(column)) return kNone;
        const std::int64_t id = q.int64(column);
        auto [it, inserted] = slots.try_emplace(id, static_cast<std::uint32_t>(table.spanLabels.size()));
        if (inserted) {
            text.reset();
            text.bind(1, id);
            table.spanLabels.emplace_back(text.step() == SQLITE_ROW ? text.text(0) : std::string());
        }
        return it->second;
    };
    sqlite::Statement q(db, "SELECT request_id, span_count, error_count, service_id, operation_id, call_service_id, "
                                    "call_operation_id FROM request_spans");
    if (!q.isValid()) return Status::error(path + ": cannot read the span summaries: " + sqlite3_errmsg(db));
    std::size_t spanRequests = 0;
    for (int rc = q.step(); rc == SQLITE_ROW; rc = q.step()) {
        const auto row = rowOf.find(q.int64(0));
        if (row == rowOf.end()) continue;
        const std::uint32_t i = row->second;
        ++spanRequests;
        table.spanCount[i] = static_cast<std::uint32_t>(q.int64(1));
        table.errorCount[i] = q.isNull(2) ? -1 : static_cast<std::int32_t>(q.int64(2));
        table.service[i] = slotOf(q, 3);
        table.entryOperation[i] = slotOf(q, 4);
        table.callService[i] = slotOf(q, 5);
        table.callOperation[i] = slotOf(q, 6);
    }
    table.hasSpans = spanRequests > 0;
    // A generic entry: one entry operation fronts at least 90 % of the span requests (ten or more), and their
    // first calls tell them apart. Those requests are known by the first call.
    std::unordered_map<std::uint32_t, std::uint32_t> byEntry;
    for (std::size_t i = 0; i < n; ++i)
        if (table.entryOperation[i] != kNone) ++byEntry[table.entryOperation[i]];
    std::uint32_t generic = kNone, most = 0;
    for (const auto& [entry, count] : byEntry)
        if (count > most) most = count, generic = entry;
    if (most < 10 || most * 10 < spanRequests * 9) generic = kNone;
    if (generic != kNone) {
        std::unordered_map<std::uint32_t, bool> calls;
        for (std::size_t i = 0; i < n && calls.size() < 2; ++i)
            if (table.entryOperation[i] == generic) calls[table.callOperation[i]] = true;
        if (calls.size() < 2) generic = kNone;
    }
    for (std::size_t i = 0; i < n; ++i)
        table.operation[i] = table.entryOperation[i] == generic && table.callOperation[i] != kNone ? table.callOperation[i]
                                                                                                   : table.entryOperation[i];
    return Status::ok();
}

} // namespace

Result<RequestTable> loadRequestTable(const TraceStore& store, const CancelToken* cancel) {
    RequestTable table;
    std::unordered_map<std::int64_t, std::uint32_t> periodSlot;
    sqlite::Statement periods(store.db(), "SELECT id, name FROM periods ORDER BY id");
    while (periods.step() == SQLITE_ROW) {
        periodSlot[periods.int64(0)] = static_cast<std::uint32_t>(table.periodNames.size());
        table.periodNames.emplace_back(periods.text(1));
    }
    sqlite::Statement count(store.db(), "SELECT COUNT(*), COUNT(start_ns) FROM requests");
    if (count.step() != SQLITE_ROW) return Status::error(store.path() + ": " + sqlite3_errmsg(store.db()));
    const auto n = static_cast<std::size_t>(count.int64(0));
    table.skewCorrected = n > 0 && count.int64(1) == count.int64(0);
    table.ids.reserve(n);
    table.names.reserve(n);
    table.periodIndex.reserve(n);
    table.startNs.reserve(n);
    table.latencyNs.reserve(n);
    table.hostCount.reserve(n);
    table.eventCount.reserve(n);

    sqlite::Statement rows(store.db(),
                           "SELECT id, name, period_id, COALESCE(start_ns, start_local_ns), "
                           "COALESCE(latency_ns, latency_local_ns), host_count, event_count FROM requests ORDER BY id");
    std::size_t processed = 0;
    for (int rc = rows.step(); rc == SQLITE_ROW; rc = rows.step()) {
        table.ids.emplace_back(static_cast<std::uint32_t>(rows.int64(0)));
        table.names.emplace_back(rows.text(1));
        table.periodIndex.push_back(periodSlot[rows.int64(2)]);
        table.startNs.push_back(rows.int64(3));
        table.latencyNs.push_back(rows.int64(4));
        table.hostCount.push_back(static_cast<std::uint32_t>(rows.int64(5)));
        table.eventCount.push_back(static_cast<std::uint32_t>(rows.int64(6)));
        if ((++processed & 0xFFFF) == 0 && cancel && cancel->isCancelled()) return Status::error("cancelled");
    }

    std::unordered_map<std::int64_t, std::uint32_t> rowOf;
    rowOf.reserve(n);
    for (std::size_t i = 0; i < table.ids.size(); ++i) rowOf[table.ids[i].value] = static_cast<std::uint32_t>(i);

    // Period membership in one scan; the table's key is (period, request), so rows arrive by period and
    // are bucketed by request here.
    {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> members;  // (row, period slot)
        sqlite::Statement scan(store.db(), "SELECT period_id, request_id FROM period_members ORDER BY period_id, request_id");
        for (int rc = scan.step(); rc == SQLITE_ROW; rc = scan.step()) {
            const auto row = rowOf.find(scan.int64(1));
            const auto slot = periodSlot.find(scan.int64(0));
            if (row == rowOf.end() || slot == periodSlot.end()) continue;
            members.emplace_back(row->second, slot->second);
            if ((++processed & 0xFFFF) == 0 && cancel && cancel->isCancelled()) return Status::error("cancelled");
        }
        table.memberBegin.assign(n + 1, 0);
        for (const auto& m : members) ++table.memberBegin[m.first + 1];
        for (std::size_t i = 0; i < n; ++i) table.memberBegin[i + 1] += table.memberBegin[i];
        table.memberPeriod.resize(members.size());
        std::vector<std::uint32_t> next(table.memberBegin.begin(), table.memberBegin.end() - 1);
        for (const auto& [row, slot] : members) table.memberPeriod[next[row]++] = slot;  // period order kept
    }

    // Attributes in one ordered scan (the primary key's order), their texts looked up once per label.
    std::unordered_map<std::int64_t, std::uint32_t> labelSlot;
    sqlite::Statement labelText(store.db(), "SELECT text FROM labels WHERE id=?1");
    auto slotOf = [&](std::int64_t labelId) {
        auto [it, inserted] = labelSlot.try_emplace(labelId, static_cast<std::uint32_t>(table.attrLabels.size()));
        if (inserted) {
            labelText.reset();
            labelText.bind(1, labelId);
            table.attrLabels.emplace_back(labelText.step() == SQLITE_ROW ? labelText.text(0) : std::string());
        }
        return it->second;
    };
    table.attrBegin.assign(table.ids.size() + 1, 0);
    std::vector<std::uint32_t> perRow(table.ids.size(), 0);
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> pairs;
    sqlite::Statement attrs(store.db(), "SELECT request_id, key_id, value_id FROM request_attrs ORDER BY request_id, key_id");
    for (int rc = attrs.step(); rc == SQLITE_ROW; rc = attrs.step()) {
        const auto row = rowOf.find(attrs.int64(0));
        if (row == rowOf.end()) continue;
        pairs.emplace_back(row->second, slotOf(attrs.int64(1)), slotOf(attrs.int64(2)));
        ++perRow[row->second];
        if ((++processed & 0xFFFF) == 0 && cancel && cancel->isCancelled()) return Status::error("cancelled");
    }
    for (std::size_t i = 0; i < perRow.size(); ++i) table.attrBegin[i + 1] = table.attrBegin[i] + perRow[i];
    table.attrKey.resize(pairs.size());
    table.attrValue.resize(pairs.size());
    std::vector<std::uint32_t> next(table.attrBegin.begin(), table.attrBegin.end() - 1);
    for (const auto& [row, key, value] : pairs) {
        const std::uint32_t at = next[row]++;
        table.attrKey[at] = key;
        table.attrValue[at] = value;
    }
    if (Status s = loadSpanSummaries(store.db(), store.path(), rowOf, table); !s) return s;
    return table;
}

namespace {
bool isHexId(const std::string& s) {
    return s.size() >= 16 && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// "req-9" before "req-10": digit runs compare by value, everything else by character. Hex trace ids
// compare as text: their digit runs are not numbers.
bool naturalLess(const std::string& a, const std::string& b) {
    if (isHexId(a) && isHexId(b)) return a < b;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = a[i] >= '0' && a[i] <= '9';
        const bool db = b[j] >= '0' && b[j] <= '9';
        if (da && db) {
            std::size_t ei = i, ej = j;
            while (ei < a.size() && a[ei] >= '0' && a[ei] <= '9') ++ei;
            while (ej < b.size() && b[ej] >= '0' && b[ej] <= '9') ++ej;
            std::size_t si = i, sj = j;  // skip leading zeros
            while (si + 1 < ei && a[si] == '0') ++si;
            while (sj + 1 < ej && b[sj] == '0') ++sj;
            if (ei - si != ej - sj) return ei - si < ej - sj;
            const int c = a.compare(si, ei - si, b, sj, ej - sj);
            if (c != 0) return c < 0;
            i = ei;
            j = ej;
        } else {
            if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}
} // namespace

std::vector<std::uint32_t> sortedOrder(const RequestTable& table, RequestColumn column, bool descending) {
    std::vector<std::uint32_t> order(table.size());
    std::iota(order.begin(), order.end(), 0u);
    auto sortBy = [&](const auto& values) {
        if (descending)
            std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return values[b] < values[a]; });
        else
            std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return values[a] < values[b]; });
    };
    switch (column) {
    case RequestColumn::Name:
        if (descending)
            std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return naturalLess(table.names[b], table.names[a]); });
        else
            std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return naturalLess(table.names[a], table.names[b]); });
        break;
    case RequestColumn::Period: sortBy(table.periodIndex); break;
    case RequestColumn::Start: sortBy(table.startNs); break;
    case RequestColumn::Latency: sortBy(table.latencyNs); break;
    case RequestColumn::Hosts: sortBy(table.hostCount); break;
    case RequestColumn::Events: sortBy(table.eventCount); break;
    case RequestColumn::Spans: sortBy(table.spanCount); break;
    case RequestColumn::Errors: sortBy(table.errorCount); break;
    case RequestColumn::Service:
    case RequestColumn::Operation: {
        // By text (a request without one last, either way), each label's rank computed once.
        const auto& slots = column == RequestColumn::Service ? table.service : table.operation;
        std::vector<std::uint32_t> byText(table.spanLabels.size());
        std::iota(byText.begin(), byText.end(), 0u);
        std::sort(byText.begin(), byText.end(), [&](auto a, auto b) { return table.spanLabels[a] < table.spanLabels[b]; });
        std::vector<std::uint32_t> rank(table.spanLabels.size());
        for (std::uint32_t r = 0; r < byText.size(); ++r) rank[byText[r]] = r;
        const auto none = descending ? 0u : RequestTable::kNoLabel;
        std::vector<std::uint32_t> values(table.size());
        for (std::size_t i = 0; i < values.size() && i < slots.size(); ++i)
            values[i] = slots[i] == RequestTable::kNoLabel ? none : rank[slots[i]];
        sortBy(values);
        break;
    }
    }
    return order;
}

} // namespace tracelight
