#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace shardmap::testing {

// A child process started from a real binary, with its stdout readable line by line and its
// stderr kept in a file for diagnostics. Killed (SIGKILL) at destruction if still running.
class ChildProcess final {
public:
    // env: extra NAME=VALUE entries added to this process's environment for the child. The child
    // is killed when the thread that spawned it exits (PR_SET_PDEATHSIG): spawn from a thread that
    // outlives it.
    static std::optional<ChildProcess> spawn(
        const std::vector<std::string>& argv, const std::string& stderrFile, const std::vector<std::string>& env = {});
    ChildProcess(ChildProcess&& other) noexcept;
    ChildProcess& operator=(ChildProcess&&) = delete;
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    ~ChildProcess();

    // The next line of stdout, or nullopt at EOF or timeout.
    std::optional<std::string> readLine(std::chrono::milliseconds timeout);
    void signal(int sig) const;
    // Waits for exit; returns the exit code, or 128 + signal when killed; nullopt on timeout.
    std::optional<int> wait(std::chrono::milliseconds timeout);
    pid_t pid() const { return m_pid; }

private:
    ChildProcess(pid_t pid, int stdoutFd)
        : m_pid(pid)
        , m_stdout(stdoutFd)
    {
    }
    pid_t m_pid = -1;
    int m_stdout = -1;
    std::string m_buffer;
    bool m_exited = false;
};

std::string readWholeFile(const std::string& path);

} // namespace shardmap::testing
