#include "tests/support/etcd_process.h"

#include <arpa/inet.h>
#include <chrono>
#include <filesystem>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace shardmap::testing {

namespace {

using namespace std::chrono_literals;

constexpr auto kStartTimeout = 30s;

// A port the kernel just handed out on loopback; free again once the socket is closed.
int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

std::string url(int port)
{
    return "http://127.0.0.1:" + std::to_string(port);
}

} // namespace

std::unique_ptr<EtcdProcess> EtcdProcess::start(
    std::string& error, const std::optional<Tls>& tls, const std::vector<std::string>& extraClientHosts)
{
    if (::access(kBinary, X_OK) != 0 || ::access(kCtlBinary, X_OK) != 0) {
        error = std::string(kBinary) + " or " + kCtlBinary
            + " is missing: install etcd-server and etcd-client (scripts/install-deps.sh)";
        return nullptr;
    }
    // Another process may take a port between freePort() and etcd's bind: try fresh ones.
    constexpr int kAttempts = 3;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        const int clientPort = freePort();
        int peerPort = freePort();
        while (peerPort == clientPort)
            peerPort = freePort();
        if (clientPort == 0 || peerPort == 0) {
            error = "no free port on 127.0.0.1 for etcd";
            return nullptr;
        }
        std::unique_ptr<EtcdProcess> etcd(new EtcdProcess(clientPort, peerPort, tls, extraClientHosts));
        if (etcd->launch(error))
            return etcd;
    }
    return nullptr;
}

EtcdProcess* EtcdProcess::shared(std::string& error)
{
    static std::string startError;
    static const std::unique_ptr<EtcdProcess> server = start(startError);
    error = startError;
    return server.get();
}

EtcdProcess::EtcdProcess(
    int clientPort, int peerPort, std::optional<Tls> tls, std::vector<std::string> extraClientHosts)
    : m_clientPort(clientPort)
    , m_peerPort(peerPort)
    , m_tls(std::move(tls))
    , m_extraClientHosts(std::move(extraClientHosts))
{
}

EtcdProcess::~EtcdProcess()
{
    stop();
}

std::string EtcdProcess::endpoint() const
{
    return "127.0.0.1:" + std::to_string(m_clientPort);
}

bool EtcdProcess::launch(std::string& error)
{
    const std::string clientUrl = m_tls ? "https://127.0.0.1:" + std::to_string(m_clientPort) : url(m_clientPort);
    std::string listenUrls = clientUrl;
    for (const auto& host : m_extraClientHosts)
        listenUrls += std::string(m_tls ? ",https://" : ",http://") + host + ":" + std::to_string(m_clientPort);
    std::vector<std::string> argv = { kBinary, "--name", "t0", "--data-dir", m_dir.file("data"), "--listen-client-urls",
        listenUrls, "--advertise-client-urls", clientUrl, "--listen-peer-urls", url(m_peerPort),
        "--initial-advertise-peer-urls", url(m_peerPort), "--initial-cluster", "t0=" + url(m_peerPort),
        "--initial-cluster-state", "new", "--logger", "zap", "--log-level", "warn" };
    if (m_tls) {
        argv.insert(argv.end(),
            { "--cert-file", m_tls->cert, "--key-file", m_tls->key, "--trusted-ca-file", m_tls->ca,
                "--client-cert-auth" });
    }
    auto spawned = ChildProcess::spawn(argv, m_dir.file("etcd.log"));
    if (!spawned) {
        error = "cannot start " + std::string(kBinary);
        return false;
    }
    m_process.emplace(std::move(*spawned));
    const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
    std::string why;
    while (std::chrono::steady_clock::now() < deadline) {
        if (etcdctl({ "endpoint", "health" }, why))
            return true;
        if (m_process->wait(0ms)) {
            error = "etcd exited at start: " + readWholeFile(m_dir.file("etcd.log"));
            m_process.reset();
            return false;
        }
        std::this_thread::sleep_for(100ms);
    }
    error = "etcd did not become healthy within 30 s: " + why + "\n" + readWholeFile(m_dir.file("etcd.log"));
    return false;
}

void EtcdProcess::stop()
{
    if (!m_process)
        return;
    m_process->signal(SIGTERM);
    if (!m_process->wait(10s)) {
        m_process->signal(SIGKILL);
        (void)m_process->wait(10s);
    }
    m_process.reset();
}

bool EtcdProcess::restart(std::string& error)
{
    stop();
    return launch(error);
}

std::vector<std::string> EtcdProcess::etcdctlEnvironment() const
{
    std::vector<std::string> env { "ETCDCTL_API=3", "ETCDCTL_ENDPOINTS=" + endpoint(), "ETCDCTL_COMMAND_TIMEOUT=5s" };
    if (m_tls) {
        env.insert(env.end(),
            { "ETCDCTL_CACERT=" + m_tls->ca, "ETCDCTL_CERT=" + m_tls->clientCert, "ETCDCTL_KEY=" + m_tls->clientKey });
    }
    return env;
}

bool EtcdProcess::etcdctl(const std::vector<std::string>& args, std::string& error) const
{
    std::vector<std::string> argv = { kCtlBinary };
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string log = m_dir.file("etcdctl.log");
    std::error_code ignored;
    std::filesystem::remove(log, ignored);
    auto ctl = ChildProcess::spawn(argv, log, etcdctlEnvironment());
    if (!ctl) {
        error = "cannot start etcdctl";
        return false;
    }
    const auto code = ctl->wait(20s);
    if (code && *code == 0)
        return true;
    error = "etcdctl exited with " + (code ? std::to_string(*code) : std::string("a timeout")) + ": "
        + readWholeFile(log);
    return false;
}

} // namespace shardmap::testing
