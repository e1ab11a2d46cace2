// Issue 27: the packaged shardmapd's first start. shardmapd creates an empty SQLite store it owns
// when told to (--create-store; the shipped configuration sets it), and `shardmapctl init` refuses
// to make a store in a directory that belongs to another user (the service's), saying how.
#include "ctl_run.h"
#include "tests/support/controller_process.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace shardmap::testing;

namespace {

constexpr uid_t kServiceUser = 65534; // Debian's nobody stands in for the shardmap user.

std::string userName(uid_t uid)
{
    const passwd* entry = ::getpwuid(uid);
    return entry ? entry->pw_name : "uid " + std::to_string(uid);
}

uid_t ownerOf(const std::string& path)
{
    struct stat file = {};
    return ::stat(path.c_str(), &file) == 0 ? file.st_uid : static_cast<uid_t>(-1);
}

} // namespace

TEST(StoreFirstStart, ShardmapdCreatesAnEmptySqliteStoreOnlyWithCreateStore)
{
    TempDir dir;
    const std::string path = dir.file("map.db");
    const std::string uri = "sqlite:" + path;

    const auto refused
        = runProgram(dir, { SHARDMAP_CONTROLLER_BINARY, "--listen", "127.0.0.1:0", "--store", uri }, {}, "missing");
    EXPECT_EQ(refused.code, 1);
    EXPECT_NE(refused.err.find("no Shardmap store at " + path), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("--create-store"), std::string::npos) << refused.err;
    EXPECT_FALSE(std::filesystem::exists(path));

    {
        auto controller = ControllerProcess::start(dir.file("first.stderr"), { "--store", uri, "--create-store" });
        ASSERT_TRUE(controller);
        EXPECT_NE(controller->stderrText().find("created an empty shard map at " + path), std::string::npos)
            << controller->stderrText();
    }
    ASSERT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(ownerOf(path), ::geteuid());
    EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::all,
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    const auto listed = runCtl(dir, uri, { "node", "list" });
    EXPECT_EQ(listed.code, 0) << listed.err;

    // The next start uses the map it made.
    auto again = ControllerProcess::start(dir.file("again.stderr"), { "--store", uri, "--create-store" });
    ASSERT_TRUE(again);
    EXPECT_EQ(again->stderrText().find("created an empty shard map"), std::string::npos) << again->stderrText();
}

TEST(StoreFirstStart, CreateStoreIsRefusedForEtcd)
{
    TempDir dir;
    const auto refused = runProgram(dir,
        { SHARDMAP_CONTROLLER_BINARY, "--listen", "127.0.0.1:0", "--store", "etcd://127.0.0.1:1/shardmap",
            "--create-store" },
        {}, "etcd");
    EXPECT_EQ(refused.code, 1);
    EXPECT_NE(refused.err.find("--create-store creates SQLite stores only"), std::string::npos) << refused.err;
}

// As root, `init` in the service's state directory made a root-owned map that shardmapd, running
// as the service user, then refused as read-only.
TEST(StoreFirstStart, InitRefusesAStoreInADirectoryOfAnotherUserAndSaysHowToMakeIt)
{
    if (::geteuid() != 0)
        GTEST_SKIP() << "only root can give a directory to another user";
    TempDir dir;
    const std::string state = dir.file("state");
    std::filesystem::create_directories(state);
    ASSERT_EQ(::chown(state.c_str(), kServiceUser, kServiceUser), 0);
    const std::string path = state + "/map.db";
    const std::string uri = "sqlite:" + path;
    const std::string service = userName(kServiceUser);

    const auto refused = runCtl(dir, uri, { "init" });
    EXPECT_EQ(refused.code, 5) << refused.err;
    EXPECT_NE(refused.err.find(state + " belongs to user " + service), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("sudo -u " + service + " shardmapctl --store " + uri + " init"), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("create-store = true"), std::string::npos) << refused.err;
    EXPECT_FALSE(std::filesystem::exists(path));

    // Done as the error says (setpriv in place of sudo), the store is the service user's.
    const auto asService = runProgram(dir,
        { "/usr/bin/setpriv", "--reuid=" + std::to_string(kServiceUser), "--regid=" + std::to_string(kServiceUser),
            "--clear-groups", SHARDMAP_CTL_BINARY, "--store", uri, "init" },
        {}, "init-as-service");
    EXPECT_EQ(asService.code, 0) << asService.err;
    EXPECT_EQ(ownerOf(path), kServiceUser);
}
