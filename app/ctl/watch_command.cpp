// shardmapctl watch: live progress of migrations in the terminal.
#include "app/ctl/commands.h"
#include "app/ctl/migration_view.h"
#include "app/ctl/output.h"
#include "core/migration/fleet_facts.h"

#include <condition_variable>
#include <csignal>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace shardmap::app {

using core::ErrorCode;
using nlohmann::json;

namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(500);
// Progress commits can come many times a second; the screen need not follow each one.
constexpr auto kMinRedrawGap = std::chrono::milliseconds(200);

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void onInterrupt(int)
{
    g_interrupted = 1;
}

struct Frame {
    json data;
    std::string table;
    bool allFinal = false;
    bool allDone = false;
};

std::vector<core::MigrationRecord> watched(const core::MapSnapshot& map, const std::vector<std::string>& ids)
{
    std::vector<core::MigrationRecord> out;
    if (ids.empty()) {
        for (const auto& [id, versioned] : map.migrations) {
            if (versioned.value.active())
                out.push_back(versioned.value);
        }
        return out;
    }
    for (const auto& id : ids) {
        const auto found = map.migrations.find(id);
        if (found != map.migrations.end())
            out.push_back(found->second.value);
    }
    return out;
}

Frame buildFrame(const core::MapSnapshot& map, const std::vector<std::string>& ids)
{
    Frame frame;
    frame.allFinal = true;
    frame.allDone = true;
    json list = json::array();
    Table table({ "MIGRATION", "SPACE", "FROM -> TO", "PHASE", "PROGRESS", "DOCS", "DOCS/S", "ETA", "STATUS" });
    const std::int64_t now = core::nowUnixMs();
    for (const auto& m : watched(map, ids)) {
        frame.allFinal = frame.allFinal && !m.active();
        frame.allDone = frame.allDone && m.phase == core::MigrationPhase::Done;
        list.push_back(migrationJson(m));
        table.addRow(
            { m.id, m.space, directionText(m), phaseText(m, map.settings.value, now), progressBar(progressShare(m)),
                std::to_string(m.progress.docsDone) + "/" + std::to_string(m.progress.docsTotal),
                fixed(m.progress.docsPerSecond), copyEtaText(m), migrationStatus(m) });
    }
    std::ostringstream text;
    if (table.empty())
        text << "no active migrations\n";
    else
        table.print(text);
    frame.table = text.str();
    frame.data = json { { "revision", map.revision }, { "migrations", list } };
    return frame;
}

// Wakes the loop when the map changes; the timer redraws anyway for rates and ETAs.
class ChangeSignal {
public:
    void notify()
    {
        std::lock_guard lock(m_mutex);
        m_changed = true;
        m_wake.notify_one();
    }
    void waitFor(std::chrono::milliseconds timeout)
    {
        std::unique_lock lock(m_mutex);
        m_wake.wait_for(lock, timeout, [this] { return m_changed; });
        m_changed = false;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_changed = false;
};

void draw(const Frame& frame, bool tty, bool asJson, std::string& last)
{
    if (asJson) {
        const std::string line = frame.data.dump();
        if (line != last)
            std::cout << line << "\n" << std::flush;
        last = line;
        return;
    }
    if (tty) {
        // Home and clear, then the frame: one redraw without scrolling.
        std::cout << "\033[H\033[2J"
                  << "shardmapctl watch  revision " << frame.data["revision"].get<std::uint64_t>() << "  "
                  << formatTime(std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                                    .count())
                  << "  (Ctrl+C to stop)\n\n"
                  << frame.table << std::flush;
        return;
    }
    // Not a terminal: plain lines, and only when something changed.
    if (frame.table != last)
        std::cout << frame.table << "\n" << std::flush;
    last = frame.table;
}

} // namespace

CommandResult cmdWatch(const CtlOptions& options, const WatchArgs& args)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    core::MapEditor editor(**store);
    auto map = editor.snapshot();
    if (!map)
        return map.error();
    for (const auto& id : args.ids) {
        if (!map->migrations.contains(id))
            return core::makeError(ErrorCode::NotFound, "no migration " + id + " in the shard map");
    }
    if (args.once) {
        const Frame frame = buildFrame(*map, args.ids);
        return CommandOutput { frame.data, [table = frame.table](std::ostream& out) { out << table; } };
    }
    ChangeSignal changes;
    auto watch = (*store)->watch(
        map->revision, [&changes](const core::AuditRecord&) { changes.notify(); }, [](const core::Error&) {});
    g_interrupted = 0;
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    const bool tty = ::isatty(STDOUT_FILENO) == 1;
    std::string last;
    Frame frame;
    auto lastDraw = std::chrono::steady_clock::now() - kRedrawEvery;
    while (true) {
        std::this_thread::sleep_until(lastDraw + kMinRedrawGap);
        map = editor.snapshot();
        if (!map)
            return map.error();
        frame = buildFrame(*map, args.ids);
        draw(frame, tty, options.json, last);
        lastDraw = std::chrono::steady_clock::now();
        if ((!args.ids.empty() && frame.allFinal) || g_interrupted)
            break;
        // Without a watch (store cannot follow) the timer alone redraws.
        changes.waitFor(kRedrawEvery);
        if (g_interrupted)
            break;
    }
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    CommandOutput out { frame.data, {} };
    out.printed = true;
    out.exitCode = !args.ids.empty() && frame.allFinal && !frame.allDone ? 1 : 0;
    return out;
}

} // namespace shardmap::app
