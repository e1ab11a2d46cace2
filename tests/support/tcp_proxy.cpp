#include "tests/support/tcp_proxy.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace shardmap::testing {

namespace {

int connectTo(const std::string& host, int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

// Writes all of data; false when the peer is gone.
bool writeAll(int fd, const char* data, std::size_t size)
{
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace

std::unique_ptr<TcpProxy> TcpProxy::start(const std::string& target, std::string& error)
{
    const auto colon = target.rfind(':');
    if (colon == std::string::npos) {
        error = "target " + target + " is not HOST:PORT";
        return nullptr;
    }
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0
        || ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
        error = std::string("cannot listen: ") + std::strerror(errno);
        if (fd >= 0)
            ::close(fd);
        return nullptr;
    }
    return std::unique_ptr<TcpProxy>(
        new TcpProxy(fd, ntohs(addr.sin_port), target.substr(0, colon), std::stoi(target.substr(colon + 1))));
}

TcpProxy::TcpProxy(int listenFd, int port, std::string targetHost, int targetPort)
    : m_listenFd(listenFd)
    , m_port(port)
    , m_targetHost(std::move(targetHost))
    , m_targetPort(targetPort)
{
    m_acceptor = std::thread([this] { acceptLoop(); });
}

TcpProxy::~TcpProxy()
{
    m_stop = true;
    m_blackholed = false;
    ::shutdown(m_listenFd, SHUT_RDWR);
    m_acceptor.join();
    ::close(m_listenFd);
    std::lock_guard lock(m_mutex);
    for (auto& pump : m_pumps)
        pump.join();
}

std::string TcpProxy::address() const
{
    return "127.0.0.1:" + std::to_string(m_port);
}

void TcpProxy::acceptLoop()
{
    while (!m_stop) {
        pollfd wait { m_listenFd, POLLIN, 0 };
        if (::poll(&wait, 1, 50) <= 0)
            continue;
        const int client = ::accept4(m_listenFd, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        // A blackholed network answers no new connection either.
        while (m_blackholed && !m_stop)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const int server = connectTo(m_targetHost, m_targetPort);
        if (server < 0) {
            ::close(client);
            continue;
        }
        const int one = 1;
        ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        std::lock_guard lock(m_mutex);
        m_pumps.emplace_back([this, client, server] { pump(client, server); });
    }
}

void TcpProxy::pump(int client, int server)
{
    char buffer[64 * 1024];
    pollfd fds[2] = { { client, POLLIN, 0 }, { server, POLLIN, 0 } };
    while (!m_stop) {
        if (m_blackholed) {
            // Hold everything: nothing read, nothing forwarded, nothing closed.
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            continue;
        }
        fds[0].revents = fds[1].revents = 0;
        if (::poll(fds, 2, 50) <= 0)
            continue;
        bool closed = false;
        for (int i = 0; i < 2 && !closed; ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = ::recv(fds[i].fd, buffer, sizeof buffer, 0);
            if (n <= 0 || !writeAll(fds[1 - i].fd, buffer, static_cast<std::size_t>(n))) {
                closed = true;
                break;
            }
            m_forwarded += static_cast<std::uint64_t>(n);
        }
        if (closed)
            break;
    }
    ::close(client);
    ::close(server);
}

} // namespace shardmap::testing
