// shardmapctl's balancer commands (issue 33, first step), the real binary against a real SQLite
// store: the policy shown with its defaults, set from a file and by mode, audited, and a bad policy
// refused with the field and why, changing nothing.
#include "core/store/metadata_store.h"
#include "ctl_run.h"

#include <fstream>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

class CtlBalancerTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(ctl({ "init" }).code, 0); }

    CtlRun ctl(std::vector<std::string> args) { return runCtl(m_dir, "sqlite:" + m_dir.file("map.db"), args); }

    std::string policyFile(const std::string& name, const std::string& json)
    {
        const std::string path = m_dir.file(name);
        std::ofstream(path) << json;
        return path;
    }

    TempDir m_dir;
};

} // namespace

TEST_F(CtlBalancerTest, ThePolicyIsShownSetFromAFileAndByModeAndABadOneIsRefused)
{
    auto shown = ctl({ "--json", "balancer", "policy" });
    ASSERT_EQ(shown.code, 0) << shown.err;
    EXPECT_EQ(shown.parsed()["mode"], "off");
    EXPECT_EQ(shown.parsed()["revision"], 0) << "no record yet: the defaults";

    auto dry = ctl({ "--json", "--reason", "watch it first", "balancer", "dry-run" });
    ASSERT_EQ(dry.code, 0) << dry.err;
    EXPECT_EQ(dry.parsed()["mode"], "dry-run");

    const std::string good = policyFile("good.json", R"({"mode": "dry-run", "split_above_bytes": 1000,
        "merge_below_bytes": 400, "window": {"days": [1,2,3,4,5], "start": "01:00", "end": "05:00",
        "time_zone": "Europe/Berlin"}, "budget": {"moves": 5}, "max_concurrent": 2})");
    auto set = ctl({ "--json", "balancer", "policy", "--set", good });
    ASSERT_EQ(set.code, 0) << set.err;
    auto again = ctl({ "--json", "balancer", "policy" });
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(again.parsed()["window"]["time_zone"], "Europe/Berlin");
    EXPECT_EQ(again.parsed()["split_above_bytes"], 1000);
    EXPECT_EQ(again.parsed()["budget"]["moves"], 5);

    const std::vector<std::pair<std::string, std::string>> bad {
        { R"({"split_above_bytes": 1000, "merge_below_bytes": 600})", "half of split_above_bytes" },
        { R"({"window": {"start": "01:00", "end": "05:00", "time_zone": "Mars/Olympus"}})", "unknown time zone" },
        { R"({"max_concurrent": 9})", "must stay below the executor's 4" },
        { R"({"mode": "sometimes"})", "mode is off, dry-run or on" },
        { R"({"sizes": 1})", "unknown key \"sizes\"" },
    };
    for (const auto& [text, says] : bad) {
        auto refused = ctl({ "balancer", "policy", "--set", policyFile("bad.json", text) });
        EXPECT_NE(refused.code, 0) << text;
        EXPECT_NE(refused.err.find(says), std::string::npos) << refused.err;
    }
    EXPECT_EQ(ctl({ "--json", "balancer", "policy" }).parsed()["split_above_bytes"], 1000) << "nothing changed";

    ASSERT_EQ(ctl({ "balancer", "enable" }).code, 0);
    EXPECT_EQ(ctl({ "--json", "balancer", "policy" }).parsed()["mode"], "on");
    ASSERT_EQ(ctl({ "balancer", "disable" }).code, 0);
    EXPECT_EQ(ctl({ "--json", "balancer", "policy" }).parsed()["mode"], "off");

    auto store = core::openStore("sqlite:" + m_dir.file("map.db"), false);
    ASSERT_TRUE(store) << store.error().describe();
    auto history = (*store)->history(0, 0, 0);
    ASSERT_TRUE(history);
    std::size_t changes = 0;
    bool reasoned = false;
    for (const auto& record : *history) {
        changes += record.action == "set-balancer-policy" ? 1 : 0;
        reasoned
            |= record.action == "set-balancer-policy" && record.reason == "watch it first" && record.actor == "tester";
    }
    EXPECT_EQ(changes, 4u) << "dry-run, the file, enable, disable";
    EXPECT_TRUE(reasoned);
}
