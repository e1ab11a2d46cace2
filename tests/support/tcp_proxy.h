#pragma once

// A TCP forwarder on loopback, for tests that cut one process off from a server while others
// still reach it: point the process at the proxy's address instead of the server's, then
// blackhole() it. A blackholed proxy keeps every connection open and forwards nothing (as a
// dropped network does, with no reset to tell the peers), and holds new connections unanswered.
// restore() forwards again, including what was held meanwhile.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shardmap::testing {

class TcpProxy final {
public:
    // Listens on 127.0.0.1 on a free port and forwards to target ("127.0.0.1:PORT").
    static std::unique_ptr<TcpProxy> start(const std::string& target, std::string& error);
    ~TcpProxy();

    TcpProxy(const TcpProxy&) = delete;
    TcpProxy& operator=(const TcpProxy&) = delete;

    // "127.0.0.1:PORT"
    std::string address() const;
    void blackhole() { m_blackholed = true; }
    void restore() { m_blackholed = false; }
    bool blackholed() const { return m_blackholed; }
    // Bytes forwarded so far in both directions (to show a cut was real).
    std::uint64_t forwardedBytes() const { return m_forwarded; }

private:
    TcpProxy(int listenFd, int port, std::string targetHost, int targetPort);
    void acceptLoop();
    void pump(int client, int server);

    int m_listenFd;
    int m_port;
    std::string m_targetHost;
    int m_targetPort;
    std::atomic<bool> m_stop { false };
    std::atomic<bool> m_blackholed { false };
    std::atomic<std::uint64_t> m_forwarded { 0 };
    std::thread m_acceptor;
    std::mutex m_mutex;
    std::vector<std::thread> m_pumps;
};

} // namespace shardmap::testing
