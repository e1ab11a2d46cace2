#pragma once

// Network namespaces made by a test (root only, loopback only: nothing leaves the machine), to
// cut one process off from one server at the IP layer while it still reaches the others.
//
// Namespace i is joined to the test's own namespace by a veth pair, 10.A.B.(4i+1) on the host
// side and 10.A.B.(4i+2) inside (A.B from the test's pid), with a default route to the host. Two
// more host addresses serve the processes inside: serviceHost() (nodes listen there) and
// storeHost() (the store listens there), both reachable from the host too. cut(i, host) adds a
// blackhole route in namespace i: its packets to that host are dropped (new connections fail,
// open ones go silent) while everything else still flows; heal() removes it.
//
// The namespaces and their veth pairs are deleted with the object; ones a crashed test left
// behind (their pid is gone) are deleted by the next create().

#include <memory>
#include <string>
#include <vector>

namespace shardmap::testing {

class NetworkNamespaces final {
public:
    // nullptr and why in `error` when this process may not make namespaces (not root, no ip(8)).
    static std::unique_ptr<NetworkNamespaces> create(int count, std::string& error);
    ~NetworkNamespaces();

    NetworkNamespaces(const NetworkNamespaces&) = delete;
    NetworkNamespaces& operator=(const NetworkNamespaces&) = delete;

    std::string serviceHost() const;
    std::string storeHost() const;
    // The address of namespace i (processes inside listen there to be reached from the host).
    std::string hostInside(int i) const;
    // argv run inside namespace i ("ip netns exec NAME argv..."; ip execs it: same pid).
    std::vector<std::string> inside(int i, const std::vector<std::string>& argv) const;

    bool cut(int i, const std::string& host, std::string& error);
    bool heal(int i, const std::string& host, std::string& error);

private:
    NetworkNamespaces(std::string prefix, int a, int b);
    std::string name(int i) const;
    std::string address(int last) const;

    std::string m_prefix;
    int m_a;
    int m_b;
    std::vector<int> m_made;
};

// Runs ip(8) with these arguments; false and its stderr in `error` when it fails.
bool runIp(const std::vector<std::string>& args, std::string& error);

} // namespace shardmap::testing
