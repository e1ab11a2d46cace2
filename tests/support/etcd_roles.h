#pragma once

// etcd's own users and roles for a shard map under one prefix, set up with the etcdctl commands
// docs/SHARD_MAP.md ("etcd users and roles") gives administrators, so that the tests run what the
// page says.

#include "tests/support/etcd_process.h"

#include <string>
#include <vector>

namespace shardmap::testing {

// The password of each user made by enableEtcdRoles: its name + "-pw".
inline std::string etcdPasswordOf(const std::string& user)
{
    return user + "-pw";
}

// On a server of the test's own (authentication is server-wide): a root user; the roles
// shardmap-viewer (read on PREFIX/) and shardmap-writer (readwrite on PREFIX/); the user shardmapd
// with shardmap-writer (the tests also set their fleets up with it, as an administrator bootstraps
// with it), the people operator and viewer with shardmap-viewer (an operator changes the fleet
// through shardmapd's Admin API), and nobody with no role; then authentication on. False and why
// otherwise.
inline bool enableEtcdRoles(const EtcdProcess& etcd, const std::string& prefix, std::string& error)
{
    const std::string keys = prefix + "/";
    const auto addUser = [](const std::string& user) {
        return std::vector<std::string> { "user", "add", user, "--new-user-password=" + etcdPasswordOf(user) };
    };
    const std::vector<std::vector<std::string>> commands {
        addUser("root"),
        { "role", "add", "shardmap-viewer" },
        { "role", "grant-permission", "--prefix=true", "shardmap-viewer", "read", keys },
        { "role", "add", "shardmap-writer" },
        { "role", "grant-permission", "--prefix=true", "shardmap-writer", "readwrite", keys },
        addUser("shardmapd"),
        { "user", "grant-role", "shardmapd", "shardmap-writer" },
        addUser("operator"),
        { "user", "grant-role", "operator", "shardmap-viewer" },
        addUser("viewer"),
        { "user", "grant-role", "viewer", "shardmap-viewer" },
        addUser("nobody"),
        { "auth", "enable" },
    };
    for (const auto& command : commands) {
        if (!etcd.etcdctl(command, error))
            return false;
    }
    return true;
}

// "etcd://HOST:PORT/PREFIX?user=USER&password=PASSWORD" for one of enableEtcdRoles's users.
inline std::string etcdUriAs(const EtcdProcess& etcd, const std::string& prefix, const std::string& user)
{
    return "etcd://" + etcd.endpoint() + "/" + prefix + "?user=" + user + "&password=" + etcdPasswordOf(user);
}

} // namespace shardmap::testing
