#pragma once

// etcd's own users and roles for a shard map under the prefix shardmap/, set up by running the
// etcdctl block that docs/SHARD_MAP.md ("etcd users and roles") gives administrators, read from
// the page itself: a page that drifts from what the tests check fails them.

#include "tests/support/doc_blocks.h"
#include "tests/support/etcd_process.h"
#include "tests/support/process.h"
#include "tests/support/test_dir.h"

#include <chrono>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace shardmap::testing {

// The password of each user made by enableEtcdRoles: its name + "-pw".
inline std::string etcdPasswordOf(const std::string& user)
{
    return user + "-pw";
}

// Runs an etcdctl script with bash -euo pipefail in dir, etcdctl pointed at etcd by its ETCDCTL_*
// variables, with a NAME.password file (etcdPasswordOf(NAME)) in dir for every `$(cat
// NAME.password)` the script reads. False and what it said otherwise.
inline bool runEtcdScript(const EtcdProcess& etcd, const TempDir& dir, const std::string& script, std::string& error)
{
    const std::regex passwordFile(R"(\$\(cat ([A-Za-z0-9_-]+)\.password\))");
    std::set<std::string> users;
    for (auto it = std::sregex_iterator(script.begin(), script.end(), passwordFile); it != std::sregex_iterator(); ++it)
        users.insert((*it)[1]);
    for (const auto& user : users)
        writeSecretFile(dir.file(user + ".password"), etcdPasswordOf(user) + "\n");
    const std::string log = dir.file("etcd-script.log");
    auto bash = ChildProcess::spawn(
        { "/bin/bash", "-c", "set -euo pipefail\ncd '" + dir.path() + "'\n" + script }, log, etcd.etcdctlEnvironment());
    if (!bash) {
        error = "cannot start bash";
        return false;
    }
    std::string out;
    while (auto line = bash->readLine(std::chrono::seconds(30)))
        out += *line + "\n";
    const auto code = bash->wait(std::chrono::seconds(30));
    if (code && *code == 0)
        return true;
    error = "the script exited with " + (code ? std::to_string(*code) : std::string("a timeout")) + ":\n" + out
        + readWholeFile(log);
    return false;
}

// The etcdctl block of docs/SHARD_MAP.md, or "" when the page has none under its heading.
inline std::string etcdRolesBlock()
{
    const auto block = docBlockUnder(SHARDMAP_SOURCE_DIR, "docs/SHARD_MAP.md", "### etcd users and roles", "sh");
    return block ? block->text : std::string();
}

// On a server of the test's own (authentication is server-wide), what the page sets up: a root
// user; the roles shardmap-viewer (read on shardmap/) and shardmap-writer (readwrite on
// shardmap/); the user shardmapd with shardmap-writer (the tests also set their fleets up with it,
// as an administrator bootstraps with it), the people operator and viewer with shardmap-viewer
// (an operator changes the fleet through shardmapd's Admin API); authentication on. Then, as root,
// the test's own user nobody with no role. False and why otherwise.
inline bool enableEtcdRoles(const EtcdProcess& etcd, std::string& error)
{
    const std::string script = etcdRolesBlock();
    if (script.empty()) {
        error = "docs/SHARD_MAP.md has no sh block under \"### etcd users and roles\"";
        return false;
    }
    TempDir dir;
    if (!runEtcdScript(etcd, dir, script, error))
        return false;
    return etcd.etcdctl({ "--user=root:" + etcdPasswordOf("root"), "user", "add", "nobody",
                            "--new-user-password=" + etcdPasswordOf("nobody") },
        error);
}

// "etcd://HOST:PORT/PREFIX?user=USER&password=PASSWORD" for one of enableEtcdRoles's users.
inline std::string etcdUriAs(const EtcdProcess& etcd, const std::string& prefix, const std::string& user)
{
    return "etcd://" + etcd.endpoint() + "/" + prefix + "?user=" + user + "&password=" + etcdPasswordOf(user);
}

} // namespace shardmap::testing
