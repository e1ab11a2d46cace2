#pragma once

#include "tests/support/process.h"
#include "tests/support/test_dir.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::testing {

// A throwaway etcd server for tests: /usr/bin/etcd on 127.0.0.1 with free client and peer ports
// (never the default 2379, where Debian's etcd-server service may listen) and a data dir of its
// own, removed at destruction. Its log goes to etcd.log in the data dir's parent.
class EtcdProcess final {
public:
    static constexpr const char* kBinary = "/usr/bin/etcd";
    static constexpr const char* kCtlBinary = "/usr/bin/etcdctl";

    // PEM files for a server that speaks only TLS and requires client certificates signed by ca.
    struct Tls {
        std::string ca;
        std::string cert;
        std::string key;
        // The client certificate etcdctl uses for its health checks.
        std::string clientCert;
        std::string clientKey;
    };

    // Starts a server and waits until it answers; nullptr and why in *error otherwise.
    // extraClientHosts: more addresses it serves clients on, on the same port (for processes in
    // other network namespaces); endpoint() stays on loopback.
    static std::unique_ptr<EtcdProcess> start(std::string& error, const std::optional<Tls>& tls = std::nullopt,
        const std::vector<std::string>& extraClientHosts = {});
    // The server shared by every test of this binary, started on first use and stopped at exit;
    // nullptr and why in *error when etcd is missing or does not start.
    static EtcdProcess* shared(std::string& error);
    ~EtcdProcess();

    EtcdProcess(const EtcdProcess&) = delete;
    EtcdProcess& operator=(const EtcdProcess&) = delete;

    // "127.0.0.1:PORT"
    std::string endpoint() const;
    // Stops the server (SIGTERM, then SIGKILL) keeping its data; restart() brings it back on the
    // same ports with the same data.
    void stop();
    bool restart(std::string& error);
    // Sends a signal to the server (SIGSTOP/SIGCONT: an outage that drops no connection).
    void signal(int sig) const
    {
        if (m_process)
            m_process->signal(sig);
    }
    // Runs etcdctl against this server; true when it exits 0.
    bool etcdctl(const std::vector<std::string>& args, std::string& error) const;
    // The ETCDCTL_* variables that point a plain `etcdctl` (one a script runs) at this server.
    std::vector<std::string> etcdctlEnvironment() const;

private:
    EtcdProcess(int clientPort, int peerPort, std::optional<Tls> tls, std::vector<std::string> extraClientHosts);
    bool launch(std::string& error);

    TempDir m_dir;
    int m_clientPort;
    int m_peerPort;
    std::optional<Tls> m_tls;
    std::vector<std::string> m_extraClientHosts;
    std::optional<ChildProcess> m_process;
};

} // namespace shardmap::testing
