#include "tests/support/network_namespaces.h"

#include "tests/support/process.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace shardmap::testing {

namespace {

std::string ipBinary()
{
    for (const char* path : { "/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip" }) {
        if (::access(path, X_OK) == 0)
            return path;
    }
    return {};
}

// "shardmap-chaos-<pid>-<i>": deletes the ones whose test process is gone.
void deleteLeftovers()
{
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator("/run/netns", ignored)) {
        const std::string name = entry.path().filename().string();
        const std::string prefix = "shardmap-chaos-";
        if (!name.starts_with(prefix))
            continue;
        const auto pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
        if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
            std::string error;
            (void)runIp({ "netns", "delete", name }, error);
        }
    }
}

} // namespace

bool runIp(const std::vector<std::string>& args, std::string& error)
{
    const std::string ip = ipBinary();
    if (ip.empty()) {
        error = "ip(8) is not installed (package iproute2)";
        return false;
    }
    char log[] = "/tmp/shardmap-ip-XXXXXX";
    const int fd = ::mkstemp(log);
    if (fd < 0) {
        error = "cannot make a temporary file";
        return false;
    }
    ::close(fd);
    std::vector<std::string> argv { ip };
    argv.insert(argv.end(), args.begin(), args.end());
    auto child = ChildProcess::spawn(argv, log);
    const auto code = child ? child->wait(std::chrono::seconds(10)) : std::nullopt;
    const std::string output = readWholeFile(log);
    ::unlink(log);
    if (code && *code == 0)
        return true;
    std::string command = "ip";
    for (const auto& arg : args)
        command += " " + arg;
    error = command + " failed" + (code ? " (exit " + std::to_string(*code) + ")" : std::string()) + ": " + output;
    return false;
}

std::unique_ptr<NetworkNamespaces> NetworkNamespaces::create(int count, std::string& error)
{
    if (::geteuid() != 0) {
        error = "network namespaces need root";
        return nullptr;
    }
    if (ipBinary().empty()) {
        error = "ip(8) is not installed (package iproute2)";
        return nullptr;
    }
    deleteLeftovers();
    // 198.18.0.0/15 is set aside for network tests (RFC 2544); the pid keeps concurrent tests apart.
    const int pid = static_cast<int>(::getpid());
    std::unique_ptr<NetworkNamespaces> made(
        new NetworkNamespaces("shardmap-chaos-" + std::to_string(pid), 18 + ((pid >> 8) & 1), pid & 255));
    for (int i = 0; i < count; ++i) {
        const std::string ns = made->name(i);
        const std::string veth = "smv" + std::to_string(pid) + "-" + std::to_string(i);
        if (!runIp({ "netns", "add", ns }, error))
            return nullptr;
        made->m_made.push_back(i);
        const std::vector<std::vector<std::string>> steps {
            { "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns },
            { "addr", "add", made->address(4 * i + 1) + "/30", "dev", veth },
            { "link", "set", veth, "up" },
            { "-n", ns, "addr", "add", made->hostInside(i) + "/30", "dev", "eth0" },
            { "-n", ns, "link", "set", "eth0", "up" },
            { "-n", ns, "link", "set", "lo", "up" },
            { "-n", ns, "route", "add", "default", "via", made->address(4 * i + 1) },
        };
        for (const auto& step : steps) {
            if (!runIp(step, error))
                return nullptr;
        }
        if (i == 0) {
            for (const auto& host : { made->serviceHost(), made->storeHost() }) {
                if (!runIp({ "addr", "add", host + "/32", "dev", veth }, error))
                    return nullptr;
            }
        }
    }
    return made;
}

NetworkNamespaces::NetworkNamespaces(std::string prefix, int a, int b)
    : m_prefix(std::move(prefix))
    , m_a(a)
    , m_b(b)
{
}

NetworkNamespaces::~NetworkNamespaces()
{
    // Deleting a namespace deletes its end of the veth pair, and with it the host's end.
    for (const int i : m_made) {
        std::string ignored;
        (void)runIp({ "netns", "delete", name(i) }, ignored);
    }
}

std::string NetworkNamespaces::name(int i) const
{
    return m_prefix + "-" + std::to_string(i);
}

std::string NetworkNamespaces::address(int last) const
{
    return "198." + std::to_string(m_a) + "." + std::to_string(m_b) + "." + std::to_string(last);
}

std::string NetworkNamespaces::serviceHost() const
{
    return address(249);
}

std::string NetworkNamespaces::storeHost() const
{
    return address(253);
}

std::string NetworkNamespaces::hostInside(int i) const
{
    return address(4 * i + 2);
}

std::vector<std::string> NetworkNamespaces::inside(int i, const std::vector<std::string>& argv) const
{
    std::vector<std::string> wrapped { ipBinary(), "netns", "exec", name(i) };
    wrapped.insert(wrapped.end(), argv.begin(), argv.end());
    return wrapped;
}

bool NetworkNamespaces::cut(int i, const std::string& host, std::string& error)
{
    return runIp({ "-n", name(i), "route", "add", "blackhole", host + "/32" }, error);
}

bool NetworkNamespaces::heal(int i, const std::string& host, std::string& error)
{
    return runIp({ "-n", name(i), "route", "delete", "blackhole", host + "/32" }, error);
}

} // namespace shardmap::testing
