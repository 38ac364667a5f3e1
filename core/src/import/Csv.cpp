#include "tracelight/import/Csv.h"

namespace tracelight {

namespace {
// True when the record so far ends inside an open quoted field.
bool insideQuotes(std::string_view text) {
    bool inQuotes = false;
    for (char c : text)
        if (c == '"') inQuotes = !inQuotes;
    return inQuotes;
}
} // namespace

bool splitCsvRecord(std::string_view record, std::vector<std::string_view>& fields,
                    std::deque<std::string>& storage, std::string* error) {
    fields.clear();
    storage.clear();
    std::size_t i = 0;
    const std::size_t n = record.size();
    for (;;) {
        if (i < n && record[i] == '"') {
            std::string value;
            ++i;
            for (;;) {
                if (i >= n) {
                    if (error) *error = "unterminated quoted field";
                    return false;
                }
                if (record[i] == '"') {
                    if (i + 1 < n && record[i + 1] == '"') {
                        value.push_back('"');
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                value.push_back(record[i++]);
            }
            if (i < n && record[i] != ',') {
                if (error) *error = "unexpected character after closing quote at column " + std::to_string(i + 1);
                return false;
            }
            storage.push_back(std::move(value));
            fields.emplace_back(storage.back());
        } else {
            const std::size_t comma = record.find(',', i);
            const std::size_t end = comma == std::string_view::npos ? n : comma;
            std::string_view raw = record.substr(i, end - i);
            if (raw.find('"') != std::string_view::npos) {
                if (error) *error = "stray quote in unquoted field at column " + std::to_string(i + 1);
                return false;
            }
            fields.push_back(raw);
            i = end;
        }
        if (i >= n) return true;
        ++i;  // skip the comma
        if (i == n) {  // trailing comma: one empty last field
            fields.emplace_back();
            return true;
        }
    }
}

namespace {
// The limit in the words of every format's error ("64 MiB"), from the one constant.
std::string limitText(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }
} // namespace

CsvReader::Next CsvReader::tooLong() {
    m_recordLine = m_lines.lineNumber();
    m_error = "line at byte " + std::to_string(m_lines.lineStartOffset()) + " is longer than the limit of " +
              limitText(m_lines.maxLineBytes()) + " for one line or field";
    return Next::Error;
}

CsvReader::Next CsvReader::next(std::vector<std::string_view>& fields) {
    std::string_view line;
    if (!m_lines.nextLine(line)) return m_lines.lineTooLong() ? tooLong() : Next::End;
    m_recordLine = m_lines.lineNumber();
    std::string_view record = line;
    if (line.find('"') != std::string_view::npos && insideQuotes(line)) {
        m_joined.assign(line);
        const std::uint64_t recordStart = m_lines.lineStartOffset();
        // The quote state carries over line by line (rescanning the whole record would be quadratic).
        for (bool open = true; open;) {
            std::string_view more;
            if (!m_lines.nextLine(more)) {
                if (m_lines.lineTooLong()) return tooLong();
                m_error = "unterminated quoted field (file ends inside quotes)";
                return Next::Error;
            }
            // A field over many short lines is held to the same limit as one line (memory stays bounded).
            if (const std::size_t limit = m_lines.maxLineBytes(); limit && m_joined.size() + 1 + more.size() > limit) {
                m_error = "quoted field of the record at byte " + std::to_string(recordStart) + " is longer than the limit of " +
                          limitText(limit) + " for one line or field";
                return Next::Error;
            }
            m_joined.push_back('\n');
            m_joined.append(more);
            open = insideQuotes(more) ? !open : open;
        }
        record = m_joined;
    }
    if (!splitCsvRecord(record, fields, m_unquoted, &m_error)) return Next::Error;
    return Next::Record;
}

} // namespace tracelight
