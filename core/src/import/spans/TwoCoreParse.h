#pragma once
// The elements of a span file parsed on two cores, their spans handed to the sink in file order. The
// reading thread scans the stream (JsonArrayStream::nextText / Member::StreamText) and hands batches of
// elements to a helper thread, parsing a batch itself only while the helper is still at the one before.
// Parsing (the JSON value and the span built from it) was most of reading a Jaeger file, and the second
// core sat idle while it ran.
//
// Errors come in file order as they did from one thread: the spans of the elements before the first bad
// one reach the sink, then its error; nothing after it. An element that is not JSON is reported as the
// stream reported it: "FILE: byte N: what".
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "import/spans/LeanJson.h"
#include "import/spans/SpanParsers.h"
#include "tracelight/base/Json.h"
#include "tracelight/import/spans/Spans.h"

namespace tracelight {

class TwoCoreParse {
public:
    // One parsed element's spans to `into`, or why not; where: "FILE: byte N: " for its messages; tag: what
    // the caller gave with it (which trace it is in, say). Runs on either thread, so it must not touch
    // anything the other uses.
    using HandleElement = std::function<Status(const JsonValue& element, const std::string& where, std::uint32_t tag, const SpanSink& into)>;
    // One element's spans read straight from its text, when `reader` reads it as it stands (LeanJson.h):
    // false when it does not, and the element is parsed and handled as above instead (nothing may have been
    // added to `into` then). Optional; runs on either thread too.
    using ReadPlain = std::function<bool(LeanJson& reader, std::string_view text, std::uint32_t tag, std::vector<RawSpan>& into)>;

    TwoCoreParse(const std::string& path, HandleElement handle, const SpanSink& sink, ReadPlain readPlain = {})
        : m_path(path), m_handle(std::move(handle)), m_readPlain(std::move(readPlain)), m_sink(sink) {}
    ~TwoCoreParse() {
        if (!m_thread.joinable()) return;
        {
            std::lock_guard lock(m_mutex);
            m_quit = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }
    TwoCoreParse(const TwoCoreParse&) = delete;
    TwoCoreParse& operator=(const TwoCoreParse&) = delete;

    // The element's text is copied: the stream reuses its buffer.
    Status add(std::string_view text, std::uint64_t offset, std::uint32_t tag = 0) {
        m_filling.starts.push_back(m_filling.text.size());
        m_filling.offsets.push_back(offset);
        m_filling.tags.push_back(tag);
        m_filling.text.append(text);
        if (m_filling.starts.size() < kElements && m_filling.text.size() < kBytes) return Status::ok();
        if (!m_helperHolds) {
            giveHelper();
            return Status::ok();
        }
        // The helper is done with the batch before this one: its spans go on, and it takes this one.
        if (helperDone()) {
            if (Status s = collectHelper(); !s) return s;
            giveHelper();
            return Status::ok();
        }
        // The helper is still at the batch before this one: parse this one meanwhile, then both go on in order.
        Batch mine = std::exchange(m_filling, Batch{});
        parse(mine, m_scratch);
        if (Status s = collectHelper(); !s) return s;
        return sink(mine);
    }

    // Every element added is parsed and its spans handed on.
    Status finish() {
        Batch mine = std::exchange(m_filling, Batch{});
        parse(mine, m_scratch);
        if (m_helperHolds)
            if (Status s = collectHelper(); !s) return s;
        return sink(mine);
    }

private:
    static constexpr std::size_t kElements = 512, kBytes = std::size_t(1) << 20;
    struct Batch {
        std::string text;                    // the elements' texts one after another
        std::vector<std::size_t> starts;     // where each begins in text
        std::vector<std::uint64_t> offsets;  // its byte offset in the file
        std::vector<std::uint32_t> tags;
        std::vector<RawSpan> spans;
        Status status = Status::ok();        // the first element that failed, after the spans before it
    };

    void parse(Batch& b, JsonValue& scratch) const {
        const SpanSink into = [&](RawSpan&& s) {
            b.spans.push_back(std::move(s));
            return Status::ok();
        };
        std::string error;
        LeanJson reader;
        for (std::size_t i = 0; i < b.starts.size(); ++i) {
            const std::size_t end = i + 1 < b.starts.size() ? b.starts[i + 1] : b.text.size();
            const std::string_view text = std::string_view(b.text).substr(b.starts[i], end - b.starts[i]);
            if (m_readPlain && text.size() <= kMaxJsonValueBytes && m_readPlain(reader, text, b.tags[i], b.spans)) continue;
            std::size_t bad = 0;
            if (!JsonValue::parse(text, scratch, &error, &bad)) {
                b.status = Status::error(m_path + ": byte " + std::to_string(b.offsets[i] + bad) + ": " + error);
                return;
            }
            b.status = m_handle(scratch, m_path + ": byte " + std::to_string(b.offsets[i]) + ": ", b.tags[i], into);
            if (!b.status) return;
        }
    }

    Status sink(Batch& b) const {
        for (RawSpan& s : b.spans)
            if (Status st = m_sink(std::move(s)); !st) return st;
        return b.status;
    }

    void giveHelper() {
        {
            std::lock_guard lock(m_mutex);
            m_helperBatch = std::exchange(m_filling, Batch{});
            m_helperDone = false;
        }
        m_helperHolds = true;
        if (!m_thread.joinable()) m_thread = std::thread([this] { runHelper(); });
        m_wake.notify_all();
    }

    bool helperDone() {
        std::lock_guard lock(m_mutex);
        return m_helperDone;
    }

    Status collectHelper() {
        Batch done;
        {
            std::unique_lock lock(m_mutex);
            m_done.wait(lock, [&] { return m_helperDone; });
            done = std::exchange(m_helperBatch, Batch{});
        }
        m_helperHolds = false;
        return sink(done);
    }

    void runHelper() {
        JsonValue scratch;
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_quit || (!m_helperDone && !m_helperBatch.starts.empty()); });
            if (m_quit) return;
            Batch work = std::exchange(m_helperBatch, Batch{});
            lock.unlock();
            try {
                parse(work, scratch);
            } catch (const std::exception& e) {  // out of memory, say: the import fails instead of the process
                work.status = Status::error(std::string("cannot read spans: ") + e.what());
            }
            lock.lock();
            m_helperBatch = std::move(work);
            m_helperDone = true;
            m_done.notify_all();
        }
    }

    const std::string& m_path;
    HandleElement m_handle;
    ReadPlain m_readPlain;
    const SpanSink& m_sink;
    Batch m_filling;
    JsonValue m_scratch;        // the reading thread's, reused from one element to the next
    bool m_helperHolds = false;  // the reading thread's view: a batch was given and not collected yet

    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    Batch m_helperBatch;        // under m_mutex
    bool m_helperDone = false;  // under m_mutex
    bool m_quit = false;        // under m_mutex
    std::thread m_thread;
};

} // namespace tracelight
