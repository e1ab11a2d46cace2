// The failpoints' implementation: one registry behind a mutex, parsed from the spec once from the
// environment, and a relaxed atomic that makes an unconfigured point free.
#include "core/util/failpoint.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace shardmap::core {

namespace {

enum class Action { Kill, Sleep, Fail, Hold };

// How long hold(PATH) waits for its file at most, so that a test that never creates it fails
// slowly instead of hanging the process it stopped.
constexpr auto kHoldLimit = std::chrono::minutes(5);

struct Point {
    Action action = Action::Fail;
    std::uint64_t sleepMs = 0;
    std::string holdPath;
    std::uint64_t nth = 0; // 0: every hit
    bool andLater = false;
    std::uint64_t hits = 0;
};

struct Registry {
    std::mutex mutex;
    std::map<std::string, Point, std::less<>> points;
    std::atomic<bool> any { false };
    bool loadedFromEnv = false;
};

Registry& registry()
{
    static Registry instance;
    return instance;
}

// The action part of one entry (without "@N") into the point.
Status parseAction(const std::string& entry, const std::string& action, Point& point)
{
    if (action == "kill") {
        point.action = Action::Kill;
    } else if (action == "error") {
        point.action = Action::Fail;
    } else if (action.starts_with("sleep(") && action.ends_with(")")) {
        point.action = Action::Sleep;
        const std::string ms = action.substr(6, action.size() - 7);
        char* rest = nullptr;
        point.sleepMs = std::strtoull(ms.c_str(), &rest, 10);
        if (ms.empty() || *rest != '\0')
            return makeError(ErrorCode::InvalidArgument, "failpoint '" + entry + "': sleep(MS) needs a number");
    } else if (action.starts_with("hold(") && action.ends_with(")") && action.size() > 6) {
        point.action = Action::Hold;
        point.holdPath = action.substr(5, action.size() - 6);
    } else {
        return makeError(ErrorCode::InvalidArgument,
            "failpoint '" + entry + "': action must be kill, error, sleep(MS) or hold(PATH)");
    }
    return {};
}

// Waits until the file exists (or kHoldLimit passed): the test decides when the point goes on.
void holdUntilFileExists(std::string_view name, const std::string& path)
{
    std::fprintf(stderr, "failpoint %.*s: holding until %s exists\n", static_cast<int>(name.size()), name.data(),
        path.c_str());
    const auto until = std::chrono::steady_clock::now() + kHoldLimit;
    while (::access(path.c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

Result<std::map<std::string, Point, std::less<>>> parse(const std::string& spec)
{
    std::map<std::string, Point, std::less<>> points;
    std::size_t start = 0;
    while (start <= spec.size()) {
        const std::size_t end = std::min(spec.find(';', start), spec.size());
        const std::string entry = spec.substr(start, end - start);
        start = end + 1;
        if (entry.empty())
            continue;
        const auto equals = entry.find('=');
        if (equals == std::string::npos || equals == 0)
            return makeError(ErrorCode::InvalidArgument, "failpoint '" + entry + "' is not NAME=ACTION");
        Point point;
        std::string action = entry.substr(equals + 1);
        if (const auto at = action.find('@'); at != std::string::npos) {
            std::string count = action.substr(at + 1);
            action.resize(at);
            if (!count.empty() && count.back() == '+') {
                point.andLater = true;
                count.pop_back();
            }
            char* rest = nullptr;
            point.nth = std::strtoull(count.c_str(), &rest, 10);
            if (count.empty() || *rest != '\0' || point.nth == 0)
                return makeError(ErrorCode::InvalidArgument, "failpoint '" + entry + "': @N needs N >= 1");
        }
        if (auto parsed = parseAction(entry, action, point); !parsed.ok())
            return parsed.error();
        points[entry.substr(0, equals)] = point;
    }
    return points;
}

void loadFromEnvOnce(Registry& reg)
{
    // Called with reg.mutex held.
    if (reg.loadedFromEnv)
        return;
    reg.loadedFromEnv = true;
    const char* spec = std::getenv("SHARDMAP_FAILPOINTS");
    if (spec == nullptr || *spec == '\0')
        return;
    auto points = parse(spec);
    if (!points) {
        // A test that asks for failpoints and gets none would pass for the wrong reason.
        std::fprintf(stderr, "SHARDMAP_FAILPOINTS: %s\n", points.error().message.c_str());
        std::abort();
    }
    reg.points = std::move(*points);
    reg.any = !reg.points.empty();
}

struct EnvLoader {
    EnvLoader()
    {
        auto& reg = registry();
        std::lock_guard lock(reg.mutex);
        loadFromEnvOnce(reg);
    }
};
const EnvLoader loadAtStartup;

} // namespace

Status setFailpoints(const std::string& spec)
{
    auto points = parse(spec);
    if (!points)
        return points.error();
    auto& reg = registry();
    std::lock_guard lock(reg.mutex);
    reg.loadedFromEnv = true;
    reg.points = std::move(*points);
    reg.any = !reg.points.empty();
    return {};
}

Status failpoint(std::string_view name)
{
    auto& reg = registry();
    if (!reg.any.load(std::memory_order_relaxed))
        return {};
    Action action;
    std::uint64_t sleepMs = 0;
    std::string holdPath;
    {
        std::lock_guard lock(reg.mutex);
        const auto found = reg.points.find(name);
        if (found == reg.points.end())
            return {};
        Point& point = found->second;
        ++point.hits;
        const bool fires = point.nth == 0 || point.hits == point.nth || (point.andLater && point.hits > point.nth);
        if (!fires)
            return {};
        action = point.action;
        sleepMs = point.sleepMs;
        holdPath = point.holdPath;
    }
    switch (action) {
    case Action::Kill:
        std::fprintf(stderr, "failpoint %.*s: kill -9\n", static_cast<int>(name.size()), name.data());
        std::fflush(stderr);
        ::kill(::getpid(), SIGKILL);
        ::pause();
        return {};
    case Action::Sleep: std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs)); return {};
    case Action::Hold: holdUntilFileExists(name, holdPath); return {};
    case Action::Fail:
        return makeError(ErrorCode::Unavailable, "failpoint " + std::string(name) + " injected an error");
    }
    return {};
}

std::uint64_t failpointHits(std::string_view name)
{
    auto& reg = registry();
    std::lock_guard lock(reg.mutex);
    const auto found = reg.points.find(name);
    return found == reg.points.end() ? 0 : found->second.hits;
}

} // namespace shardmap::core
