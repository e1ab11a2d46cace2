// Usage errors of the real shardmapctl (issue 27): every subcommand's bad usage exits 2 with one
// sentence naming what was wrong, and with --json says it as {"error": ...} too. The table must
// name every subcommand the binary's --help lists, so a new command cannot skip it.
#include "ctl_run.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace shardmap::testing;

namespace {

struct BadUsage {
    std::vector<std::string> args;
    std::string says;
};

// One bad use of each subcommand and of each group, with what the sentence must contain.
const std::vector<BadUsage> kBadUsage {
    { {}, "shardmapctl needs a subcommand" },
    { { "bogus" }, "'bogus' is not a subcommand of shardmapctl" },
    { { "--bogus" }, "unknown option '--bogus' for shardmapctl" },
    { { "init", "extra" }, "unexpected argument 'extra' for shardmapctl init" },
    { { "store" }, "shardmapctl store needs a subcommand: copy" },
    { { "store", "copy", "--from", "sqlite:a.db" }, "store copy: --to is required" },
    { { "node", "bogus" },
        "'bogus' is not a subcommand of shardmapctl node (it has: add, remove, list, lose, set-zone)" },
    { { "node", "lose" }, "node lose: node is required" },
    { { "node", "set-zone", "n1" }, "node set-zone: zone is required" },
    { { "shard", "promote", "s1" }, "shard promote: node is required" },
    { { "template" }, "shardmapctl template needs a subcommand" },
    { { "reindex", "--all" }, "reindex: --to-template is required" },
    { { "plan", "reindex", "--all" }, "plan reindex: --to-template is required" },
    { { "template", "list", "extra" }, "unexpected argument 'extra' for shardmapctl template list" },
    { { "template", "show" }, "template show: template is required" },
    { { "template", "create" }, "template create: name is required" },
    { { "template", "diff", "a" }, "template diff: to is required" },
    { { "snapshot" }, "shardmapctl snapshot needs a subcommand" },
    { { "snapshot", "create", "extra" }, "unexpected argument 'extra' for shardmapctl snapshot create" },
    { { "snapshot", "list", "extra" }, "unexpected argument 'extra' for shardmapctl snapshot list" },
    { { "snapshot", "show" }, "snapshot show: id is required" },
    { { "snapshot", "verify" }, "snapshot verify: id is required" },
    { { "snapshot", "delete" }, "snapshot delete: id is required" },
    { { "restore" }, "shardmapctl restore needs a subcommand" },
    { { "balancer" }, "shardmapctl balancer needs a subcommand" },
    { { "balancer", "policy", "--set" }, "balancer policy: --set needs a value" },
    { { "balancer", "status", "extra" }, "unexpected argument 'extra' for shardmapctl balancer status" },
    { { "balancer", "history", "--limit" }, "balancer history: --limit needs a value" },
    { { "balancer", "enable", "extra" }, "unexpected argument 'extra' for shardmapctl balancer enable" },
    { { "balancer", "disable", "extra" }, "unexpected argument 'extra' for shardmapctl balancer disable" },
    { { "balancer", "dry-run", "extra" }, "unexpected argument 'extra' for shardmapctl balancer dry-run" },
    { { "restore", "space", "--snapshot", "snap-1", "--space", "t1" }, "restore space: --shard is required" },
    { { "restore", "shard", "--snapshot", "snap-1", "--shard", "s1" }, "restore shard: --node is required" },
    { { "restore", "fleet", "--snapshot", "snap-1", "--node", "n0=a:1" }, "restore fleet: --repository is required" },
    { { "shard", "replicas" }, "shardmapctl shard replicas needs a subcommand" },
    { { "shard", "replicas", "add", "s1" }, "shard replicas add: node is required" },
    { { "shard", "replicas", "remove", "s1" }, "shard replicas remove: node is required" },
    { { "shard", "replicas", "list" }, "shard replicas list: shard is required" },
    { { "shard", "set-replication-factor", "s1", "many" }, "shard set-replication-factor: factor must be" },
    { { "node", "add", "n1" }, "node add: address is required" },
    { { "node", "add", "n1", "h:1", "--label", "zone" }, "node add: 'zone' is not KEY=VALUE" },
    { { "node", "remove" }, "node remove: id is required" },
    { { "node", "list", "--bogus" }, "unknown option '--bogus' for shardmapctl node list" },
    { { "shard" }, "shardmapctl shard needs a subcommand" },
    { { "shard", "create", "s1" }, "shard create: --node is required" },
    { { "shard", "create", "s1", "--node", "n1", "--capacity-docs", "many" },
        "shard create: --capacity-docs must be a whole number, not 'many'" },
    { { "shard", "list", "extra" }, "unexpected argument 'extra' for shardmapctl shard list" },
    { { "shard", "set-state", "s1" }, "shard set-state: state is required" },
    { { "space", "list", "--shard" }, "space list: --shard needs a value" },
    { { "space", "where" }, "space where: space is required" },
    { { "space", "pin", "sp" }, "space pin: shard is required" },
    { { "space", "unpin" }, "space unpin: space is required" },
    { { "space", "reassign", "sp" }, "space reassign: shard is required" },
    { { "map", "diff", "a", "b" }, "map diff: rev1 must be a whole number, not 'a'" },
    { { "map", "history", "--limit", "x" }, "map history: --limit must be a whole number, not 'x'" },
    { { "map", "verify-audit", "extra" }, "unexpected argument 'extra' for shardmapctl map verify-audit" },
    { { "write", "--field", "title" }, "write: 'title' is not KEY=VALUE" },
    { { "search", "q" }, "search: --space is required" },
    { { "search", "--space", "sp", "--limit", "0", "q" }, "search: --limit: value 0 not in range 1 to 1000" },
    { { "stats", "--bogus" }, "unknown option '--bogus' for shardmapctl stats" },
    { { "health", "--disk-warning", "101" }, "health: --disk-warning: value 101 not in range 0 to 100" },
    { { "migrate", "sp" }, "migrate: --to is required" },
    { { "migrations" }, "shardmapctl migrations needs a subcommand: list, show" },
    { { "migrations", "list", "--state" }, "migrations list: --state needs a value" },
    { { "migrations", "show" }, "migrations show: id is required" },
    { { "migrations", "pause" }, "migrations pause: id is required" },
    { { "migrations", "resume" }, "migrations resume: id is required" },
    { { "migrations", "cancel" }, "migrations cancel: id is required" },
    { { "migrations", "rollback" }, "migrations rollback: id is required" },
    { { "migrations", "abandon" }, "migrations abandon: id is required" },
    { { "migrations", "throttle", "m1", "fast" }, "migrations throttle: docs_per_sec must be a whole number" },
    { { "migrations", "settings", "--batch", "big" }, "migrations settings: --batch must be a whole number" },
    { { "drain" }, "drain: shard is required" },
    { { "retire-node" }, "retire-node: node is required" },
    { { "split", "s1" }, "split: --new-shard is required" },
    { { "merge", "s1" }, "merge: --into is required" },
    { { "isolate", "sp" }, "isolate: --new-shard is required" },
    { { "operations", "bogus" }, "'bogus' is not a subcommand of shardmapctl operations (it has: list, show)" },
    { { "operations", "list", "extra" }, "unexpected argument 'extra' for shardmapctl operations list" },
    { { "operations", "show" }, "operations show: id is required" },
    { { "watch", "--bogus" }, "unknown option '--bogus' for shardmapctl watch" },
    { { "plan" }, "shardmapctl plan needs a subcommand: rebalance" },
    { { "plan", "rebalance", "--band", "2" }, "plan rebalance: --band: value 2 not in range 0.01 to 1" },
    { { "plan", "add-shard" }, "plan add-shard: shards is required" },
    { { "plan", "drain" }, "plan drain: shard is required" },
    { { "plan", "retire-node" }, "plan retire-node: node is required" },
    { { "plan", "split", "s1" }, "plan split: --new-shard is required" },
    { { "plan", "merge", "a", "b" }, "plan merge: from takes at most 1 value(s), not 2" },
    { { "plan", "isolate", "sp" }, "plan isolate: --new-shard is required" },
    { { "plan", "apply" }, "plan apply: file is required" },
    { { "simulate", "--seed", "x" }, "simulate: --seed must be a whole number, not 'x'" },
    { { "report", "--format" }, "report: --format needs a value" },
    { { "whoami", "extra" }, "unexpected argument 'extra' for shardmapctl whoami" },
    { { "approvals", "bogus" }, "'bogus' is not a subcommand of shardmapctl approvals" },
    { { "approvals", "list", "--bogus" }, "unknown option '--bogus' for shardmapctl approvals list" },
    { { "approvals", "approve" }, "approvals approve: id is required" },
    { { "approvals", "refuse" }, "approvals refuse: id is required" },
    { { "approvals", "remove" }, "approvals remove: id is required" },
    { { "access" }, "shardmapctl access needs a subcommand: new-token" },
    { { "access", "new-token" }, "access new-token: identity is required" },
    { { "access", "hash-token" }, "access hash-token: identity is required" },
    { { "access", "set" }, "access set: file is required" },
    { { "access", "show", "extra" }, "unexpected argument 'extra' for shardmapctl access show" },
    { { "access", "check" }, "access check: file is required" },
    { { "--timeout-ms", "5", "node", "list" }, "--timeout-ms: value 5 not in range 100 to 600000" },
};

// Every subcommand path the binary's --help lists, walked from the top ("plan apply", ...).
void listSubcommands(const TempDir& dir, const std::vector<std::string>& path, std::set<std::string>& out)
{
    std::vector<std::string> argv { SHARDMAP_CTL_BINARY };
    argv.insert(argv.end(), path.begin(), path.end());
    argv.push_back("--help");
    std::istringstream help(runProgram(dir, argv, {}, "help").out);
    bool inList = false;
    for (std::string line; std::getline(help, line);) {
        inList = inList || line == "Subcommands:";
        if (!inList || !line.starts_with("  ") || line[2] == ' ')
            continue;
        auto sub = path;
        sub.push_back(line.substr(2, line.find(' ', 2) - 2));
        std::string joined;
        for (const auto& word : sub)
            joined += (joined.empty() ? "" : " ") + word;
        out.insert(joined);
        listSubcommands(dir, sub, out);
    }
}

std::string argsText(const std::vector<std::string>& args)
{
    std::string text;
    for (const auto& arg : args)
        text += " " + arg;
    return text;
}

} // namespace

TEST(CtlUsage, EveryBadUsageExitsTwoWithASentenceAndJsonUnderJson)
{
    TempDir dir;
    const std::string store = "sqlite:" + dir.file("map.db");
    std::string covered = "\n";
    for (const auto& [args, says] : kBadUsage) {
        SCOPED_TRACE("shardmapctl" + argsText(args));
        covered += argsText(args) + " \n";
        const auto plain = runCtl(dir, store, args);
        EXPECT_EQ(plain.code, 2) << plain.err;
        EXPECT_NE(plain.err.find(says), std::string::npos) << plain.err;
        EXPECT_EQ(plain.err.find("Run with --help"), std::string::npos) << "CLI11's own text: " << plain.err;
        EXPECT_EQ(std::count(plain.err.begin(), plain.err.end(), '\n'), 1) << "one sentence: " << plain.err;
        // First: after the words, an option short of its value would take it as that value.
        auto withJson = args;
        withJson.insert(withJson.begin(), "--json");
        const auto underJson = runCtl(dir, store, withJson);
        EXPECT_EQ(underJson.code, 2) << underJson.err;
        const auto parsed = underJson.parsed();
        ASSERT_TRUE(parsed.is_object()) << underJson.out;
        EXPECT_EQ(parsed["error"]["code"], "invalid argument");
        EXPECT_NE(parsed["error"]["message"].get<std::string>().find(says), std::string::npos) << underJson.out;
    }
    // Every subcommand the binary has is in the table, as the start of a case's words.
    std::set<std::string> subcommands;
    listSubcommands(dir, {}, subcommands);
    EXPECT_GT(subcommands.size(), 60u);
    for (const auto& sub : subcommands)
        EXPECT_NE(covered.find("\n " + sub + " "), std::string::npos) << "no bad usage of " << sub << " in the table";
}

TEST(CtlUsage, HelpAndVersionStillExitZero)
{
    TempDir dir;
    const auto help = runProgram(dir, { SHARDMAP_CTL_BINARY, "plan", "apply", "--help" });
    EXPECT_EQ(help.code, 0) << help.err;
    EXPECT_NE(help.out.find("Plan file"), std::string::npos);
    EXPECT_EQ(runProgram(dir, { SHARDMAP_CTL_BINARY, "--version" }).code, 0);
}
