#include "tracelight/capture/OtlpReceiver.h"

#include <sys/resource.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "capture/CaptureWriter.h"
#include "capture/OtlpGrpc.h"
#include "tracelight/capture/OtlpHttp.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;


// "HOST:PORT", "[V6]:PORT"; a bare PORT or ":PORT" is the loopback address (another address only when named).
Result<tcp::endpoint> parseAddress(const std::string& text) {
    std::string host = "127.0.0.1", port = text;
    if (!text.empty() && text.front() == '[') {
        const auto close = text.find(']');
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
            return Status::error("address '" + text + "': expected [IPV6]:PORT");
        host = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else if (const auto colon = text.rfind(':'); colon != std::string::npos) {
        if (colon > 0) host = text.substr(0, colon);
        port = text.substr(colon + 1);
    }
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535)
        return Status::error("address '" + text + "': the port must be a number from 0 to 65535");
    boost::system::error_code ec;
    auto address = net::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
    if (ec) return Status::error("address '" + text + "': '" + host + "' is not an IP address (such as 127.0.0.1 or [::1])");
    return tcp::endpoint(address, static_cast<unsigned short>(std::stoul(port)));
}

// Enough file descriptors for the connections asked for (the soft limit is often 1024).
void raiseDescriptorLimit(std::size_t connections) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    const rlim_t want = static_cast<rlim_t>(connections + 64);
    if (limit.rlim_cur >= want) return;
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? want : std::min(want, limit.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &limit);
}

} // namespace

// ---- the network side: one thread, so sessions, counts and budgets need no locks ----------------------

class OtlpReceiver::Impl {
public:
    Impl(TraceStore& store, ReceiverOptions options, ReceiverLog log)
        : m_store(store), m_options(std::move(options)), m_log(std::move(log)), m_acceptor(m_io), m_signals(m_io), m_drain(m_io) {}

    Status open() {
        auto capture = LiveCapture::open(m_store, m_options.capture, steadyNow());
        if (!capture) return capture.status();
        m_capture = std::move(capture.value());
        auto endpoint = parseAddress(m_options.httpAddress);
        if (!endpoint) return endpoint.status();
        raiseDescriptorLimit(m_options.maxConnections);
        boost::system::error_code ec;
        m_acceptor.open(endpoint->protocol(), ec);
        if (!ec) m_acceptor.set_option(net::socket_base::reuse_address(true), ec);
        if (!ec) m_acceptor.bind(endpoint.value(), ec);
        if (!ec) m_acceptor.listen(net::socket_base::max_listen_connections, ec);
        if (ec) return Status::error("cannot listen on " + m_options.httpAddress + ": " + ec.message());
        const auto bound = m_acceptor.local_endpoint(ec);
        m_endpoint = bound.address().is_v6() ? "[" + bound.address().to_string() + "]:" + std::to_string(bound.port())
                                             : bound.address().to_string() + ":" + std::to_string(bound.port());
        m_writer = std::make_unique<CaptureWriter>(*m_capture, m_options, m_log);
        if (!m_options.grpcAddress.empty()) {
            // The same address rules as OTLP/HTTP's (gRPC itself would take port 99999 as 34463), handed on spelt out.
            auto grpcEndpoint = parseAddress(m_options.grpcAddress);
            if (!grpcEndpoint) return Status::error("OTLP/gRPC " + grpcEndpoint.message());
            const auto& a = grpcEndpoint->address();
            m_options.grpcAddress = (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(grpcEndpoint->port());
            auto grpc = OtlpGrpcServer::start(m_options, *m_writer, m_counters);
            if (!grpc) return grpc.status();
            m_grpc = std::move(grpc.value());
        }
        if (m_options.handleSignals) {
            // Taken from here on, not from run(): a signal sent as soon as the address is announced is kept for it.
            m_signals.add(SIGINT);
            m_signals.add(SIGTERM);
        }
        return Status::ok();
    }

    Status run() {
        m_writer->start();
        if (m_options.handleSignals) {
            m_signals.async_wait([this](const boost::system::error_code& ec, int) {
                if (ec) return;
                // A second signal ends the process at once (everything acknowledged is committed already).
                m_signals.clear();
                beginStop();
            });
        }
        accept();
        m_io.run();
        // OTLP/HTTP has answered its requests in flight; OTLP/gRPC does so now, while the writer still commits.
        if (m_grpc) m_grpc->shutdown(m_options.drainTimeout);
        m_writer->stop();
        return Status::ok();
    }

    void stop() {
        net::post(m_io, [this] { beginStop(); });
    }

    class Session;
    void sessionEnded(Session* session) {
        m_sessions.erase(session);
        if (m_pausedAccepting && !m_stopping) {
            m_pausedAccepting = false;
            accept();
        }
        if (m_stopping && m_sessions.empty()) m_drain.cancel();
    }

    std::string m_endpoint;
    TraceStore& m_store;
    ReceiverOptions m_options;
    ReceiverLog m_log;
    net::io_context m_io{1};
    tcp::acceptor m_acceptor;
    net::signal_set m_signals;
    net::steady_timer m_drain;
    std::unique_ptr<LiveCapture> m_capture;
    std::unique_ptr<CaptureWriter> m_writer;
    std::unordered_set<Session*> m_sessions;
    std::size_t m_bytesInFlight = 0;
    bool m_stopping = false;
    bool m_pausedAccepting = false;
    ReceiverCounters m_counters;
    std::unique_ptr<OtlpGrpcServer> m_grpc;  // null without OTLP/gRPC

private:
    void accept();
    void beginStop();
};

class OtlpReceiver::Impl::Session : public std::enable_shared_from_this<Session> {
public:
    Session(Impl& server, tcp::socket socket) : m_server(server), m_socket(std::move(socket)), m_timer(m_socket.get_executor()) {}

    void start() {
        m_server.m_sessions.insert(this);
        readHeader();
    }
    ~Session() {
        release();
        m_server.sessionEnded(this);
    }
    bool idle() const { return m_idle; }
    // Ends the session: its socket closed and its timer stopped (a pending timer would keep it alive).
    void close() {
        boost::system::error_code ec;
        m_timer.cancel();
        m_socket.close(ec);
    }

private:
    // The deadline of what the session waits for now: on expiry its socket's operations are cancelled.
    void arm(std::chrono::milliseconds after) {
        m_timedOut = false;
        m_timer.expires_after(after);
        // A deadline that expired as it was replaced must not cut the next wait short: only the latest counts.
        m_timer.async_wait([self = shared_from_this(), armed = ++m_armed](const boost::system::error_code& ec) {
            if (ec || armed != self->m_armed) return;  // re-armed or disarmed
            self->m_timedOut = true;
            boost::system::error_code ignored;
            self->m_socket.cancel(ignored);
        });
    }
    void disarm() {
        ++m_armed;
        m_timer.cancel();
    }

    void release() {
        m_server.m_bytesInFlight -= m_reserved;
        m_reserved = 0;
    }

    void readHeader() {
        if (m_server.m_stopping) return close();
        m_parser.emplace();
        m_parser->header_limit(64 * 1024);
        m_parser->body_limit(m_server.m_options.maxBodyBytes);
        m_idle = true;
        arm(m_server.m_options.idleTimeout);
        http::async_read_header(m_socket, m_buffer, *m_parser,
                                [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) { self->onHeader(ec); });
    }

    // What the head says the body is (for the encoding of an error reply); protobuf when it says nothing usable.
    capture::BodyKind kindOfHead() const {
        const auto& req = m_parser->get();
        const auto type = std::string(req[http::field::content_type]);
        return type.find("json") != std::string::npos ? capture::BodyKind::Json : capture::BodyKind::Protobuf;
    }

    void onHeader(const boost::system::error_code& ec) {
        m_idle = false;
        if (ec == http::error::body_limit) {  // a Content-Length past the limit: refused before its body is read
            // The parser stops at that field, before the head is done: its length is read from the field itself.
            const auto length = m_parser->get()[http::field::content_length];
            const std::string size = length.empty() ? std::string("the body") : "the body of " + std::string(length) + " bytes";
            return replyAndClose(capture::errorReply(kindOfHead(), 413,
                                                     size + " is over the limit of " + std::to_string(m_server.m_options.maxBodyBytes)));
        }
        if (ec == http::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset) return close();  // the peer is done
        if (ec && m_timedOut) {
            if (m_buffer.size() == 0) return close();  // an idle kept-alive connection: closed in silence
            return replyAndClose(capture::plainReply(408, "the request's head did not arrive within the read timeout"));
        }
        if (ec == http::error::header_limit) return replyAndClose(capture::plainReply(431, "the request's head is over 64 KiB"));
        if (ec) return replyAndClose(capture::plainReply(400, "not an HTTP/1.1 request: " + ec.message()));
        ++m_server.m_counters.requests;
        const auto& req = m_parser->get();
        const auto head = capture::checkHead({std::string_view(req.method_string().data(), req.method_string().size()),
                                              std::string_view(req.target().data(), req.target().size()),
                                              std::string_view(req[http::field::content_type].data(), req[http::field::content_type].size()),
                                              std::string_view(req[http::field::content_encoding].data(), req[http::field::content_encoding].size())});
        if (const auto* reply = std::get_if<capture::HttpReply>(&head)) return replyAndClose(*reply);
        m_kind = std::get<capture::BodyKind>(head);
        // Memory for the body: what it says it holds (or the limit, for a chunked one), within the budget.
        const std::size_t need = m_parser->content_length() ? static_cast<std::size_t>(*m_parser->content_length()) : m_server.m_options.maxBodyBytes;
        if (m_server.m_bytesInFlight + need > m_server.m_options.maxBytesInFlight && m_server.m_bytesInFlight > 0)
            return replyAndClose(capture::errorReply(m_kind, 429, "too many request bodies being read at once; retry later",
                                                     m_server.m_options.retryAfterSeconds));
        m_reserved = need;
        m_server.m_bytesInFlight += need;
        arm(m_server.m_options.readTimeout);
        http::async_read(m_socket, m_buffer, *m_parser,
                         [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) { self->onBody(ec); });
    }

    void onBody(const boost::system::error_code& ec) {
        if (ec == http::error::body_limit)
            return replyAndClose(capture::errorReply(m_kind, 413, "the body is over the limit of " + std::to_string(m_server.m_options.maxBodyBytes) + " bytes"));
        if (ec && m_timedOut) return replyAndClose(capture::errorReply(m_kind, 408, "the request's body did not arrive within the read timeout"));
        if (ec) return close();  // the peer went away
        disarm();
        auto request = m_parser->release();
        release();
        const bool keepAlive = request.keep_alive();
        auto decoded = capture::decodeBody(m_kind, std::string(request[http::field::content_encoding]), request.body(),
                                           m_server.m_options.maxBodyBytes);
        std::string().swap(request.body());
        if (auto* reply = std::get_if<capture::HttpReply>(&decoded)) return replyAndClose(*reply);
        auto& received = std::get<capture::ReceivedSpans>(decoded);
        m_server.m_counters.rejected += received.rejected;
        if (received.spans.empty()) return reply(capture::successReply(m_kind, received.rejected, received.rejectedMessage), keepAlive);
        const std::int64_t count = static_cast<std::int64_t>(received.spans.size());
        auto self = shared_from_this();
        const auto kind = m_kind;
        const std::int64_t rejected = received.rejected;
        std::string message = std::move(received.rejectedMessage);
        // Answered once the writer has committed them, back on the network thread.
        const bool queued = m_server.m_writer->submit(std::move(received.spans), [self, kind, rejected, message, count, keepAlive](const Status& stored) {
            net::post(self->m_socket.get_executor(), [self, kind, rejected, message, count, keepAlive, stored] {
                if (!stored) return self->replyAndClose(capture::errorReply(kind, 503, "cannot store the spans: " + stored.message(),
                                                                            self->m_server.m_options.retryAfterSeconds));
                self->m_server.m_counters.spans += count;
                self->reply(capture::successReply(kind, rejected, message), keepAlive);
            });
        });
        if (!queued)
            replyAndClose(capture::errorReply(m_kind, 429, "the store is behind: too many spans waiting to be written; retry later",
                                              m_server.m_options.retryAfterSeconds));
    }

    void reply(const capture::HttpReply& r, bool keepAlive) {
        m_response = {};
        m_response.result(static_cast<http::status>(r.status));
        m_response.version(11);
        m_response.set(http::field::server, "tracelight");
        m_response.set(http::field::content_type, r.contentType);
        if (r.retryAfterSeconds > 0) m_response.set(http::field::retry_after, std::to_string(r.retryAfterSeconds));
        m_response.keep_alive(keepAlive && !m_server.m_stopping);
        m_response.body() = r.body;
        m_response.prepare_payload();
        arm(m_server.m_options.readTimeout);  // a peer that does not read its answer is not waited for longer
        http::async_write(m_socket, m_response, [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
            self->disarm();
            if (ec) return self->close();
            if (self->m_response.keep_alive()) return self->readHeader();
            self->lingeringClose();
        });
    }

    void replyAndClose(const capture::HttpReply& r) {
        release();
        reply(r, false);
    }

    // Half-closes and reads what the peer still sends (a body that was refused) for a moment, so that the
    // answer reaches it instead of being lost to a reset.
    void lingeringClose() {
        boost::system::error_code ec;
        m_socket.shutdown(tcp::socket::shutdown_send, ec);
        if (ec) return close();
        arm(std::chrono::milliseconds(2000));
        discard();
    }
    void discard() {
        m_socket.async_read_some(net::buffer(m_scratch), [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
            if (ec) return self->close();
            self->discard();
        });
    }

    Impl& m_server;
    tcp::socket m_socket;
    net::steady_timer m_timer;
    bool m_timedOut = false;
    std::uint64_t m_armed = 0;
    bool m_idle = false;
    beast::flat_buffer m_buffer;
    std::optional<http::request_parser<http::string_body>> m_parser;
    http::response<http::string_body> m_response;
    capture::BodyKind m_kind = capture::BodyKind::Protobuf;
    std::size_t m_reserved = 0;
    char m_scratch[16384];
};

void OtlpReceiver::Impl::accept() {
    m_acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
        if (m_stopping || !m_acceptor.is_open()) return;
        if (!ec) std::make_shared<Session>(*this, std::move(socket))->start();
        // At the limit, the next connection waits in the listen queue until one ends.
        if (m_sessions.size() >= m_options.maxConnections) {
            m_pausedAccepting = true;
            return;
        }
        if (ec == net::error::no_descriptors || ec == net::error::no_buffer_space) {
            m_pausedAccepting = true;  // resumed as a session ends
            if (!m_sessions.empty()) return;
        }
        accept();
    });
}

void OtlpReceiver::Impl::beginStop() {
    if (m_stopping) return;
    m_stopping = true;
    m_log("stopping: answering the requests in flight, then storing every open trace");
    boost::system::error_code ec;
    m_acceptor.close(ec);
    m_signals.cancel(ec);
    // Connections waiting for their next request are closed; the others finish theirs (within the drain time).
    std::vector<Session*> idle;
    for (Session* s : m_sessions)
        if (s->idle()) idle.push_back(s);
    for (Session* s : idle) s->close();
    if (m_sessions.empty()) return;
    m_drain.expires_after(m_options.drainTimeout);
    m_drain.async_wait([this](const boost::system::error_code& ec) {
        if (ec) return;
        std::vector<Session*> left(m_sessions.begin(), m_sessions.end());
        for (Session* s : left) s->close();
    });
}

OtlpReceiver::OtlpReceiver(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
OtlpReceiver::~OtlpReceiver() = default;

Result<std::unique_ptr<OtlpReceiver>> OtlpReceiver::start(TraceStore& store, ReceiverOptions options, ReceiverLog log) {
    if (!log) log = [](const std::string&) {};
    auto impl = std::make_unique<Impl>(store, std::move(options), std::move(log));
    if (Status s = impl->open(); !s) return s;
    return std::unique_ptr<OtlpReceiver>(new OtlpReceiver(std::move(impl)));
}

std::string OtlpReceiver::httpEndpoint() const { return m_impl->m_endpoint; }
std::string OtlpReceiver::grpcEndpoint() const { return m_impl->m_grpc ? m_impl->m_grpc->endpoint() : std::string(); }
Status OtlpReceiver::run() { return m_impl->run(); }
void OtlpReceiver::stop() { m_impl->stop(); }

OtlpReceiver::Counts OtlpReceiver::counts() const {
    Counts c;
    c.spans = m_impl->m_counters.spans.load();
    c.rejectedSpans = m_impl->m_counters.rejected.load();
    c.requests = m_impl->m_counters.requests.load();
    c.traces = m_impl->m_writer ? m_impl->m_writer->tracesStored() : 0;
    c.storedAgain = m_impl->m_writer ? m_impl->m_writer->tracesStoredAgain() : 0;
    return c;
}

} // namespace tracelight
