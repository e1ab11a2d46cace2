// `shardmapctl health` end to end (issue 16): the real binary against real nodes, a real SQLite
// store and a real shardmapd, each alert rule fired by a real condition (a killed and a frozen
// node, a full tmpfs, a stalled migration held by a failpoint, a failed migration, a slowed
// backfill, a shard written past its capacity, an unreadable store, no executor) and cleared.
#include "core/map/map_editor.h"
#include "ctl_run.h"
#include "tests/support/controller_process.h"
#include "tests/support/small_filesystem.h"

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

constexpr int kWarning = 8;
constexpr int kCritical = 9;

class HealthCommandTest : public ::testing::Test {
protected:
    void SetUp() override { startCtlFleet(m_dir, storeUri(), m_nodes); }

    std::string storeUri() const { return "sqlite:" + m_dir.file("map.db"); }

    CtlRun ctl(std::vector<std::string> args) { return runCtl(m_dir, storeUri(), args); }

    // health --json with extra flags; a short node deadline, so a frozen node answers quickly.
    CtlRun health(std::vector<std::string> flags = {})
    {
        std::vector<std::string> args { "--json", "--timeout-ms", "1500", "health" };
        args.insert(args.end(), flags.begin(), flags.end());
        return ctl(args);
    }

    static const json* alertOf(const CtlRun& run, const std::string& kind, const std::string& subject = {})
    {
        static json found;
        const json parsed = run.parsed();
        if (!parsed.contains("alerts"))
            return nullptr;
        for (const json& alert : parsed["alerts"]) {
            if (alert.value("kind", "") == kind && (subject.empty() || alert.value("subject", "") == subject)) {
                found = alert;
                return &found;
            }
        }
        return nullptr;
    }

    // Polls health until fires(run) holds; returns the last run.
    template <typename Fires> CtlRun waitFor(Fires fires, std::vector<std::string> flags = {}, int seconds = 30)
    {
        CtlRun run;
        pollUntil(std::chrono::seconds(seconds), [&] {
            run = health(flags);
            return fires(run);
        });
        return run;
    }

    std::unique_ptr<ControllerProcess> startController(const std::vector<std::string>& env = {})
    {
        auto controller = ControllerProcess::start(
            m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" }, env);
        EXPECT_TRUE(controller);
        if (controller) {
            EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return controller->leads(); }));
        }
        return controller;
    }

    // Writes docs documents into space through shardmapctl's router; returns the shard it is on.
    std::string writeSpace(const std::string& space, int docs, int from = 0)
    {
        const std::string file = m_dir.file(space + "-" + std::to_string(from) + ".jsonl");
        {
            std::ofstream out(file);
            for (int i = from; i < from + docs; ++i) {
                out << json { { "space", space }, { "id", "doc-" + std::to_string(i) }, { "version", 1 },
                    { "fields", { { "title", "t" }, { "body", std::string(300, static_cast<char>('a' + i % 26)) } } } }
                           .dump()
                    << "\n";
            }
        }
        auto written = ctl({ "write", "--file", file });
        EXPECT_EQ(written.code, 0) << written.err;
        auto where = ctl({ "--json", "space", "where", space });
        EXPECT_EQ(where.code, 0) << where.err;
        return where.parsed().value("shard", "");
    }

    std::string migrate(const std::string& space, const std::string& target, std::vector<std::string> extra = {})
    {
        std::vector<std::string> args { "--json", "migrate", space, "--to", target };
        args.insert(args.end(), extra.begin(), extra.end());
        auto run = ctl(args);
        EXPECT_EQ(run.code, 0) << run.err;
        return run.parsed()["migration"].value("id", "");
    }

    core::MigrationRecord migration(const std::string& id)
    {
        auto store = core::openStore(storeUri(), false);
        auto map = core::MapEditor(**store).snapshot();
        return map->migrations.at(id).value;
    }

    TempDir m_dir;
    std::vector<std::unique_ptr<NodeProcess>> m_nodes;
};

} // namespace

TEST_F(HealthCommandTest, AQuietFleetWithAnExecutorIsOkAndNamesItsReplicas)
{
    auto controller = startController();
    ASSERT_TRUE(controller);
    CtlRun run;
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10),
        [&] {
            run = health();
            return run.code == 0 && run.parsed()["replicas"].size() == 1;
        }))
        << run.out << run.err;
    const json out = run.parsed();
    EXPECT_TRUE(out["alerts"].empty());
    EXPECT_EQ(out["nodes"], 2);
    EXPECT_EQ(out["nodes_reachable"], 2);
    EXPECT_EQ(out["executor"]["holder"].get<std::string>().rfind("c1#", 0), 0u) << out.dump();
    EXPECT_EQ(out["replicas"][0]["address"], controller->address());
    EXPECT_EQ(out["replicas"][0]["replica"], out["executor"]["holder"]);

    auto human = ctl({ "health" });
    EXPECT_EQ(human.code, 0);
    EXPECT_NE(human.out.find("ok: no alerts; 2 of 2 nodes reachable; executor: c1#"), std::string::npos) << human.out;

    // A replica that stops gives its leases back: no executor, no replica.
    controller->disconnect();
    controller->process().signal(SIGTERM);
    ASSERT_EQ(controller->process().wait(std::chrono::seconds(20)).value_or(-1), 0);
    run = health();
    EXPECT_EQ(run.code, kWarning) << run.out;
    ASSERT_NE(alertOf(run, "no-executor"), nullptr) << run.out;
    EXPECT_EQ((*alertOf(run, "no-executor"))["severity"], "warning");
    EXPECT_TRUE(run.parsed()["replicas"].empty());
}

TEST_F(HealthCommandTest, NoExecutorIsCriticalOnceAMigrationWaitsAndClearsWhenOneRuns)
{
    const std::string from = writeSpace("acme", 20);
    const std::string id = migrate("acme", from == "s0" ? "s1" : "s0");
    auto run = health();
    EXPECT_EQ(run.code, kCritical) << run.out;
    ASSERT_NE(alertOf(run, "no-executor"), nullptr) << run.out;
    EXPECT_EQ((*alertOf(run, "no-executor"))["severity"], "critical");
    EXPECT_NE(ctl({ "health" }).out.find("1 open migration(s) wait"), std::string::npos);

    auto controller = startController();
    ASSERT_TRUE(controller);
    run = waitFor([](const CtlRun& r) { return r.code == 0; });
    EXPECT_EQ(run.code, 0) << run.out;
}

TEST_F(HealthCommandTest, AFrozenNodeFiresAndClearsWhenItWakesAndAKilledOneFires)
{
    auto controller = startController();
    ASSERT_TRUE(controller);
    ASSERT_EQ(waitFor([](const CtlRun& r) { return r.code == 0; }).code, 0);

    m_nodes[0]->process().signal(SIGSTOP);
    auto run = health();
    m_nodes[0]->process().signal(SIGCONT);
    EXPECT_EQ(run.code, kCritical) << run.out;
    ASSERT_NE(alertOf(run, "node-unreachable", "n0"), nullptr) << run.out;
    EXPECT_EQ(run.parsed()["nodes_reachable"], 1);
    EXPECT_EQ(waitFor([](const CtlRun& r) { return r.code == 0; }).code, 0) << "cleared once it answers again";

    m_nodes[1]->kill9();
    run = health();
    EXPECT_EQ(run.code, kCritical);
    const json* down = alertOf(run, "node-unreachable", "n1");
    ASSERT_NE(down, nullptr) << run.out;
    EXPECT_NE((*down)["summary"].get<std::string>().find("node n1 cannot be reached"), std::string::npos);
    EXPECT_EQ(alertOf(run, "node-unreachable", "n0"), nullptr);
}

TEST_F(HealthCommandTest, AFullDiskFiresCriticalAndClearsWhenSpaceReturns)
{
    SmallFilesystem fs(m_dir.file("small"), "16m");
    if (!fs.mounted())
        GTEST_SKIP() << "needs root to mount a tmpfs";
    m_nodes.push_back(NodeProcess::start(m_dir.file("small/node2"), { "--min-free-bytes", "0" }));
    ASSERT_TRUE(m_nodes.back());
    ASSERT_EQ(ctl({ "node", "add", "n2", m_nodes.back()->address() }).code, 0);
    auto controller = startController();
    ASSERT_TRUE(controller);
    ASSERT_EQ(waitFor([](const CtlRun& r) { return r.code == 0; }).code, 0);

    {
        std::ofstream filler(m_dir.file("small/filler"), std::ios::binary);
        const std::string block(1 << 20, 'f');
        for (int i = 0; i < 15; ++i)
            filler.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
    // The node samples its disk once a second.
    auto run = waitFor([](const CtlRun& r) { return alertOf(r, "disk-full", "n2") != nullptr; });
    EXPECT_EQ(run.code, kCritical) << run.out;
    const json* disk = alertOf(run, "disk-full", "n2");
    ASSERT_NE(disk, nullptr) << run.out;
    EXPECT_EQ((*disk)["severity"], "critical");
    EXPECT_GE((*disk)["value"].get<double>(), 90.0);
    EXPECT_EQ(alertOf(run, "disk-full", "n0"), nullptr) << "the other nodes' disks are not that full";
    // Raised thresholds make the same disk a warning.
    run = health({ "--disk-critical", "99.99" });
    ASSERT_NE(alertOf(run, "disk-full", "n2"), nullptr);
    EXPECT_EQ((*alertOf(run, "disk-full", "n2"))["severity"], "warning");
    EXPECT_EQ(run.code, kWarning);

    std::filesystem::remove(m_dir.file("small/filler"));
    run = waitFor([](const CtlRun& r) { return r.code == 0; });
    EXPECT_EQ(run.code, 0) << run.out;
}

TEST_F(HealthCommandTest, AStalledMigrationFiresWhileTheExecutorIsHeldAndClearsWhenItMoves)
{
    const std::string from = writeSpace("acme", 200);
    // The executor's first backfill batch hangs for 8 s: no progress, no record update.
    auto controller = startController({ "SHARDMAP_FAILPOINTS=migration.backfill.batch=sleep(8000)@1" });
    ASSERT_TRUE(controller);
    const std::string id = migrate("acme", from == "s0" ? "s1" : "s0", { "--throttle", "1000" });
    auto run = waitFor(
        [](const CtlRun& r) { return alertOf(r, "migration-stalled") != nullptr; }, { "--stall-seconds", "3" }, 15);
    const json* stalled = alertOf(run, "migration-stalled", id);
    ASSERT_NE(stalled, nullptr) << run.out;
    EXPECT_EQ(run.code, kWarning);
    EXPECT_GE((*stalled)["value"].get<double>(), 3.0);
    EXPECT_NE((*stalled)["summary"].get<std::string>().find("made no progress in"), std::string::npos);

    // Once the batch returns the migration moves (and finishes): cleared.
    run = waitFor([](const CtlRun& r) { return r.code == 0; }, { "--stall-seconds", "3" }, 30);
    EXPECT_EQ(run.code, 0) << run.out;
}

TEST_F(HealthCommandTest, AFailedMigrationFiresWithItsReasonForTheLookback)
{
    // Queued while both nodes answer (the preflight asks the target); its target's node is then
    // lost, and the executor is told not to wait for it.
    ASSERT_EQ(ctl({ "migrations", "settings", "--start-retry-seconds", "0" }).code, 0);
    const std::string from = writeSpace("acme", 20);
    const std::string to = from == "s0" ? "s1" : "s0";
    const std::string id = migrate("acme", to);
    m_nodes[to == "s0" ? 0 : 1]->kill9();
    auto controller = startController();
    ASSERT_TRUE(controller);
    ASSERT_TRUE(
        pollUntil(std::chrono::seconds(20), [&] { return migration(id).phase == core::MigrationPhase::Failed; }));
    auto run = health();
    EXPECT_EQ(run.code, kCritical) << "and the dead node";
    const json* failed = alertOf(run, "migration-failed", id);
    ASSERT_NE(failed, nullptr) << run.out;
    EXPECT_EQ((*failed)["severity"], "warning");
    EXPECT_EQ((*failed)["detail"], migration(id).error);
    EXPECT_NE((*failed)["summary"].get<std::string>().find("space acme, " + from + " → " + to), std::string::npos);
    EXPECT_EQ(alertOf(health({ "--failed-lookback-hours", "0" }), "migration-failed"), nullptr);
}

TEST_F(HealthCommandTest, ASlowedBackfillFiresEtaGrowing)
{
    auto controller = startController();
    ASSERT_TRUE(controller);
    // Small batches, so that progress is smooth at either rate.
    ASSERT_EQ(ctl({ "migrations", "settings", "--batch", "20" }).code, 0);
    const std::string from = writeSpace("acme", 4000);
    const std::string id = migrate("acme", from == "s0" ? "s1" : "s0", { "--throttle", "400" });
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10),
        [&] { return migration(id).phase == core::MigrationPhase::Backfill && migration(id).progress.docsDone > 0; }));
    std::this_thread::sleep_for(std::chrono::seconds(5));
    ASSERT_EQ(ctl({ "migrations", "throttle", id, "40" }).code, 0);
    // The copy goes on at the new rate (it used to wait until the whole run's average fell to it:
    // 2,000 documents copied at 400/s held a copy throttled to 40/s for 45 s).
    const auto slowed = migration(id).progress.docsDone;
    EXPECT_TRUE(pollUntil(std::chrono::seconds(3), [&] { return migration(id).progress.docsDone > slowed; }))
        << "no progress after the throttle was lowered";
    const std::vector<std::string> flags { "--eta-window-seconds", "3", "--eta-growth-min-seconds", "1",
        "--stall-seconds", "600" };
    auto run = waitFor([&](const CtlRun& r) { return alertOf(r, "eta-growing", id) != nullptr; }, flags, 20);
    const json* growing = alertOf(run, "eta-growing", id);
    ASSERT_NE(growing, nullptr) << run.out << ctl({ "--json", "migrations", "show", id }).out;
    EXPECT_GT((*growing)["value"].get<double>(), (*growing)["threshold"].get<double>() * 1.5) << run.out;
    EXPECT_EQ(run.code, kWarning);
    ASSERT_EQ(ctl({ "migrations", "cancel", id }).code, 0);
}

TEST_F(HealthCommandTest, ShardCapacityCpuAndMemoryFollowTheirThresholds)
{
    auto controller = startController();
    ASSERT_TRUE(controller);
    ASSERT_EQ(ctl({ "shard", "create", "small", "--node", "n0", "--capacity-docs", "10" }).code, 0);
    writeSpace("acme", 1);
    ASSERT_EQ(ctl({ "space", "reassign", "acme", "small" }).code, 0);
    writeSpace("acme", 9, 1);
    auto run = waitFor([](const CtlRun& r) { return alertOf(r, "shard-over-capacity", "small") != nullptr; });
    ASSERT_NE(alertOf(run, "shard-over-capacity", "small"), nullptr) << run.out;
    EXPECT_EQ((*alertOf(run, "shard-over-capacity", "small"))["severity"], "warning") << "10 of 10 is full, not over";
    writeSpace("acme", 3, 10);
    run = waitFor([](const CtlRun& r) {
        const json* over = alertOf(r, "shard-over-capacity", "small");
        return over && (*over)["severity"] == "critical";
    });
    EXPECT_EQ(run.code, kCritical) << run.out;

    // Figures from the nodes against the thresholds given: any CPU over 0 % now, memory over a tiny limit.
    run = health({ "--cpu-warning", "0", "--window-minutes", "0", "--memory-limit-gib", "0.001" });
    EXPECT_NE(alertOf(run, "cpu-high", "n0"), nullptr) << run.out;
    EXPECT_NE(alertOf(run, "cpu-high", "n1"), nullptr);
    ASSERT_NE(alertOf(run, "memory-high", "n1"), nullptr) << run.out;
    EXPECT_EQ((*alertOf(run, "memory-high", "n1"))["severity"], "critical");
    run = health({ "--memory-limit-gib", "1000" });
    EXPECT_EQ(alertOf(run, "memory-high"), nullptr);
    EXPECT_EQ(alertOf(run, "cpu-high"), nullptr);
}

TEST_F(HealthCommandTest, AnUnreadableStoreIsCriticalAndNoStoreIsAUsageError)
{
    auto run = runCtl(m_dir, "sqlite:" + m_dir.file("missing/dir/map.db"), { "--json", "health" });
    EXPECT_EQ(run.code, kCritical) << run.out << run.err;
    const json* store = alertOf(run, "store-unreachable");
    ASSERT_NE(store, nullptr) << run.out;
    EXPECT_FALSE(run.parsed()["store_reachable"].get<bool>());
    EXPECT_FALSE((*store)["detail"].get<std::string>().empty());

    auto usage = runProgram(m_dir, { SHARDMAP_CTL_BINARY, "health" }, { "SHARDMAP_STORE=" }, "ctl");
    EXPECT_EQ(usage.code, 2) << usage.out << usage.err;
    EXPECT_NE(usage.err.find("no store given"), std::string::npos) << usage.err;
}
