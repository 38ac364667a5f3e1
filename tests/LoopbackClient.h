#pragma once
// A plain TCP client on 127.0.0.1 for the live capture's tests: bytes in (a request, or half of one), bytes out
// until the peer closes (or 20 s pass), so a test can send what no HTTP library would.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace tracelight::test {

class LoopbackClient {
public:
    explicit LoopbackClient(int port) {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        timeval limit{20, 0};
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
        m_connected = ::connect(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    }
    ~LoopbackClient() { ::close(m_fd); }
    LoopbackClient(const LoopbackClient&) = delete;
    LoopbackClient& operator=(const LoopbackClient&) = delete;

    bool connected() const { return m_connected; }
    void send(const std::string& bytes) {
        for (std::size_t done = 0; done < bytes.size();) {
            const ssize_t n = ::send(m_fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
            if (n <= 0) return;
            done += static_cast<std::size_t>(n);
        }
    }
    // Everything until the peer closes (or the receive timeout).
    std::string readAll() {
        std::string out;
        char buffer[4096];
        for (ssize_t n; (n = ::recv(m_fd, buffer, sizeof buffer, 0)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
        return out;
    }

private:
    int m_fd = -1;
    bool m_connected = false;
};

// A POST of an OTLP body to /v1/traces that asks the server to close after answering.
inline std::string otlpPost(const std::string& contentType, const std::string& body, const std::string& extraHeaders = "") {
    return "POST /v1/traces HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: " + contentType + "\r\n" + extraHeaders +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// The status code of an HTTP response (0: none).
inline int httpStatusOf(const std::string& response) { return response.size() > 12 ? std::atoi(response.substr(9, 3).c_str()) : 0; }

} // namespace tracelight::test
