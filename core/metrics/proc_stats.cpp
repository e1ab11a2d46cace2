#include "core/metrics/proc_stats.h"

// The /proc readers and their parsers: this process's stat, statm and io, the system's CPU times,
// and a file system's free space.

#include <cerrno>
#include <charconv>
#include <cstddef>
#include <fcntl.h>
#include <string_view>
#include <sys/statvfs.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace shardmap::core {

namespace {

// std::error_code::message() gives the strerror text without strerror()'s shared buffer,
// so concurrent failures cannot garble each other's messages.
Error errnoError(int err, std::string_view what, const std::string& path)
{
    const ErrorCode code = (err == ENOENT || err == ENOTDIR) ? ErrorCode::NotFound : ErrorCode::Internal;
    return makeError(code, std::string(what) + ": " + std::error_code(err, std::generic_category()).message(), path);
}

Error malformed(std::string_view source, std::string_view why)
{
    return makeError(ErrorCode::InvalidArgument, "malformed " + std::string(source) + ": " + std::string(why));
}

// /proc files report a size of 0, so they are read until EOF rather than by their size.
Result<std::string> readProcFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errnoError(errno, "cannot open", path);
    std::string text;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int err = errno;
            ::close(fd);
            return errnoError(err, "cannot read", path);
        }
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

bool isFieldSeparator(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::vector<std::string_view> splitWhitespace(std::string_view text)
{
    std::vector<std::string_view> tokens;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && isFieldSeparator(text[i]))
            ++i;
        const std::size_t start = i;
        while (i < text.size() && !isFieldSeparator(text[i]))
            ++i;
        if (i > start)
            tokens.push_back(text.substr(start, i - start));
    }
    return tokens;
}

// Strict: the whole token must be a decimal number, so "12abc" or "-1" are rejected rather
// than read as 12 or wrapped around.
bool parseUnsigned(std::string_view token, std::uint64_t& out)
{
    if (token.empty())
        return false;
    const char* end = token.data() + token.size();
    const auto [ptr, ec] = std::from_chars(token.data(), end, out);
    return ec == std::errc() && ptr == end;
}

std::string_view nextLine(std::string_view text, std::size_t& pos)
{
    const std::size_t eol = text.find('\n', pos);
    const std::size_t end = eol == std::string_view::npos ? text.size() : eol;
    const std::string_view line = text.substr(pos, end - pos);
    pos = end == text.size() ? end : end + 1;
    return line;
}

Result<std::uint64_t> readRssBytes()
{
    const std::string path = "/proc/self/statm";
    auto text = readProcFile(path);
    if (!text)
        return text.error();
    auto pages = parseStatmResidentPages(*text);
    if (!pages)
        return pages.error();
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    if (pageSize <= 0)
        return makeError(ErrorCode::Internal, "sysconf(_SC_PAGESIZE) gave no page size", path);
    return *pages * static_cast<std::uint64_t>(pageSize);
}

Result<double> readCpuSeconds()
{
    const std::string path = "/proc/self/stat";
    auto text = readProcFile(path);
    if (!text)
        return text.error();
    const long ticksPerSecond = ::sysconf(_SC_CLK_TCK);
    if (ticksPerSecond <= 0)
        return makeError(ErrorCode::Internal, "sysconf(_SC_CLK_TCK) gave no clock tick rate", path);
    return parseProcSelfStatCpuSeconds(*text, ticksPerSecond);
}

} // namespace

// /proc/self/statm: "size resident shared text lib data dt", all in pages. Resident is VmRSS,
// what an operator compares with top and the memory cgroup's figures; the shared (file-backed)
// pages it includes are mostly the libraries' code, since SQLite does not mmap the shards.
Result<std::uint64_t> parseStatmResidentPages(std::string_view text)
{
    const std::vector<std::string_view> fields = splitWhitespace(text);
    std::uint64_t pages = 0;
    if (fields.size() < 2 || !parseUnsigned(fields[1], pages))
        return malformed("/proc/self/statm", "no resident page count in '" + std::string(text.substr(0, 80)) + "'");
    return pages;
}

Result<ProcessCounters> readProcessCounters()
{
    auto rss = readRssBytes();
    if (!rss)
        return rss.error();
    auto cpuSeconds = readCpuSeconds();
    if (!cpuSeconds)
        return cpuSeconds.error();

    // A missing or unreadable /proc/self/io (kernel without task IO accounting, or a restrictive
    // sandbox) is not an error: RSS and CPU are still worth reporting, and ioAvailable says why
    // the IO rates are 0.
    ProcessCounters counters;
    if (auto io = readProcFile("/proc/self/io")) {
        auto parsed = parseProcSelfIo(*io);
        if (!parsed)
            return parsed.error();
        counters = *parsed;
    }
    counters.rssBytes = *rss;
    counters.cpuSeconds = *cpuSeconds;
    return counters;
}

Result<SystemCpuTimes> readSystemCpuTimes()
{
    auto text = readProcFile("/proc/stat");
    if (!text)
        return text.error();
    return parseProcStat(*text);
}

Result<DiskSpace> readDiskSpace(const std::string& path)
{
    struct statvfs info { };
    if (::statvfs(path.c_str(), &info) != 0)
        return errnoError(errno, "statvfs failed", path);
    DiskSpace space;
    space.totalBytes = static_cast<std::uint64_t>(info.f_blocks) * info.f_frsize;
    space.freeBytes = static_cast<std::uint64_t>(info.f_bavail) * info.f_frsize;
    return space;
}

Result<SystemCpuTimes> parseProcStat(std::string_view text)
{
    // Columns of the aggregate "cpu " line: user nice system idle iowait irq softirq steal guest
    // guest_nice. guest and guest_nice are already counted in user and nice, so adding them would
    // count that time twice. Kernels before 2.6.33 print fewer columns; those missing count as 0.
    constexpr std::size_t kIowait = 4;
    constexpr std::size_t kSummed = 8;

    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::string_view line = nextLine(text, pos);
        if (!line.starts_with("cpu "))
            continue; // "cpu0" etc. are per-core; only the aggregate line is wanted
        const std::vector<std::string_view> fields = splitWhitespace(line.substr(4));
        if (fields.size() <= kIowait)
            return malformed("/proc/stat",
                "the cpu line has " + std::to_string(fields.size()) + " columns; at least "
                    + std::to_string(kIowait + 1) + " are needed");
        SystemCpuTimes times;
        for (std::size_t i = 0; i < fields.size() && i < kSummed; ++i) {
            std::uint64_t value = 0;
            if (!parseUnsigned(fields[i], value))
                return malformed("/proc/stat",
                    "column " + std::to_string(i + 1) + " of the cpu line is '" + std::string(fields[i])
                        + "', not a number");
            times.total += value;
            if (i == kIowait)
                times.iowait = value;
        }
        return times;
    }
    return malformed("/proc/stat", "no 'cpu ' line");
}

Result<double> parseProcSelfStatCpuSeconds(std::string_view text, long ticksPerSecond)
{
    // Field 2 is the command name in parentheses, and the name itself may contain spaces and
    // parentheses ("(my (odd) name)"). The kernel never escapes it, so the only reliable anchor is
    // the last ')': everything after it is numeric fields, starting with field 3 (state).
    constexpr std::size_t kFirstFieldAfterComm = 3;
    constexpr std::size_t kUtime = 14 - kFirstFieldAfterComm;
    constexpr std::size_t kStime = 15 - kFirstFieldAfterComm;

    if (ticksPerSecond <= 0)
        return makeError(
            ErrorCode::InvalidArgument, "ticks per second must be positive, not " + std::to_string(ticksPerSecond));
    const std::size_t close = text.rfind(')');
    if (close == std::string_view::npos)
        return malformed("/proc/self/stat", "no ')' closing the command name");
    const std::vector<std::string_view> fields = splitWhitespace(text.substr(close + 1));
    if (fields.size() <= kStime)
        return malformed("/proc/self/stat",
            "only " + std::to_string(fields.size()) + " fields after the command name; utime and stime are missing");
    std::uint64_t utime = 0;
    std::uint64_t stime = 0;
    if (!parseUnsigned(fields[kUtime], utime) || !parseUnsigned(fields[kStime], stime))
        return malformed("/proc/self/stat",
            "utime '" + std::string(fields[kUtime]) + "' or stime '" + std::string(fields[kStime])
                + "' is not a number");
    return static_cast<double>(utime + stime) / static_cast<double>(ticksPerSecond);
}

Result<ProcessCounters> parseProcSelfIo(std::string_view text)
{
    // Lines are "name: value". Only read_bytes and write_bytes (what reached the storage layer)
    // are kept; rchar/wchar also count pipes, sockets and page-cache hits.
    ProcessCounters counters;
    bool haveRead = false;
    bool haveWrite = false;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::string_view line = nextLine(text, pos);
        if (splitWhitespace(line).empty())
            continue;
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos)
            return malformed("/proc/self/io", "line '" + std::string(line) + "' has no ':'");
        const std::string_view name = line.substr(0, colon);
        const std::vector<std::string_view> values = splitWhitespace(line.substr(colon + 1));
        std::uint64_t value = 0;
        if (values.size() != 1 || !parseUnsigned(values[0], value))
            return malformed("/proc/self/io", "line '" + std::string(line) + "' has no single numeric value");
        if (name == "read_bytes") {
            counters.ioReadBytes = value;
            haveRead = true;
        } else if (name == "write_bytes") {
            counters.ioWriteBytes = value;
            haveWrite = true;
        }
    }
    // Both or nothing: a rate computed from half the counters would look real but be wrong.
    counters.ioAvailable = haveRead && haveWrite;
    if (!counters.ioAvailable) {
        counters.ioReadBytes = 0;
        counters.ioWriteBytes = 0;
    }
    return counters;
}

} // namespace shardmap::core
