// ServerProcess's implementation: start on ChildProcess, the address line, /proc figures, a graceful stop.
#include "bench/bench_process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>
#include <utility>

namespace shardmap::bench {

namespace {

constexpr std::size_t kTailLines = 20;
constexpr std::size_t kTailLineChars = 400;

// The last lines of a log, indented, for an error message.
std::string logTail(const std::string& path)
{
    std::istringstream in(testing::readWholeFile(path));
    std::deque<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        if (line.size() > kTailLineChars)
            line = line.substr(0, kTailLineChars) + "...";
        lines.push_back(std::move(line));
        if (lines.size() > kTailLines)
            lines.pop_front();
    }
    if (lines.empty())
        return "\n  (" + path + " is empty)";
    std::string out = "\n  last lines of " + path + ":";
    for (const auto& line : lines)
        out += "\n  | " + line;
    return out;
}

} // namespace

std::unique_ptr<ServerProcess> ServerProcess::start(
    const std::vector<std::string>& command, const std::string& logPath, std::chrono::milliseconds timeout)
{
    if (command.empty())
        throw std::runtime_error("ServerProcess::start: empty command");
    const std::string& binary = command.front();
    // ChildProcess reports a failed exec only as exit code 127; say why up front instead.
    if (::access(binary.c_str(), X_OK) != 0)
        throw std::runtime_error("cannot start " + binary + ": " + std::strerror(errno));
    // ChildProcess appends to the log; a server's log holds this run only.
    std::ofstream(logPath, std::ios::trunc).close();
    auto child = testing::ChildProcess::spawn(command, logPath);
    if (!child)
        throw std::runtime_error("cannot start " + binary + ": pipe or fork failed");

    const std::string prefix = "listening on ";
    const auto line = child->readLine(timeout);
    if (line && line->starts_with(prefix))
        return std::unique_ptr<ServerProcess>(new ServerProcess(std::move(*child), line->substr(prefix.size())));

    const auto code = child->wait(std::chrono::seconds(1));
    std::string why;
    if (line)
        why = "got '" + *line + "'" + (code ? "; it exited with code " + std::to_string(*code) : "");
    else if (code)
        why = "it exited with code " + std::to_string(*code) + " before printing one";
    else
        why = "nothing on stdout within " + std::to_string(timeout.count()) + " ms";
    // child's destructor kills it if it still runs.
    throw std::runtime_error(binary + " did not report its address (see " + logPath + "); " + why + logTail(logPath));
}

ServerProcess::ServerProcess(testing::ChildProcess child, std::string address)
    : m_child(std::move(child))
    , m_address(std::move(address))
{
}

ServerProcess::~ServerProcess()
{
    stop();
}

double ServerProcess::cpuSeconds() const
{
    if (m_exitCode)
        return 0;
    std::ifstream in("/proc/" + std::to_string(m_child.pid()) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    if (close == std::string::npos)
        return 0;
    std::istringstream fields(stat.substr(close + 2));
    std::vector<std::string> values;
    for (std::string value; fields >> value;)
        values.push_back(value);
    // Fields 14 and 15 of /proc/PID/stat (utime, stime); values[0] is field 3.
    if (values.size() < 13)
        return 0;
    return static_cast<double>(std::stoull(values[11]) + std::stoull(values[12]))
        / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::uint64_t ServerProcess::rssBytes() const
{
    if (m_exitCode)
        return 0;
    std::ifstream in("/proc/" + std::to_string(m_child.pid()) + "/statm");
    std::uint64_t size = 0;
    std::uint64_t resident = 0;
    in >> size >> resident;
    return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

int ServerProcess::stop()
{
    if (m_exitCode)
        return *m_exitCode;
    m_child.signal(SIGTERM);
    auto code = m_child.wait(m_stopGrace);
    if (!code) {
        m_child.signal(SIGKILL);
        code = m_child.wait(std::chrono::seconds(30));
    }
    // Not reaped even after SIGKILL (it cannot happen short of a kernel stuck in I/O): say killed.
    m_exitCode = code.value_or(128 + SIGKILL);
    return *m_exitCode;
}

} // namespace shardmap::bench
