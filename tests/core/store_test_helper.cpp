// The second process of the SQLite store tests (tests/core/store_sqlite_test.cpp):
//
//   store_test_helper increment PATH COUNT GOFILE
//       waits until GOFILE exists, makes COUNT successful read-modify-CAS increments of the record
//       "counter", prints "done SUCCESSES CONFLICTS"
//   store_test_helper hang PATH
//       commits keys a, b and c and stops inside the transaction, just before COMMIT, after
//       printing "in-transaction" (the test kills it there with SIGKILL)
//   store_test_helper open PATH create|existing [--unprivileged]
//       opens the store (as user nobody when root and --unprivileged), prints "ok" or
//       "error<TAB>CODE<TAB>MESSAGE"; exit code 3 and "skip ..." when privileges cannot be dropped

#include "core/store/sqlite_store.h"

#include <chrono>
#include <filesystem>
#include <grp.h>
#include <iostream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace shardmap::core;

namespace {

constexpr uid_t kNobody = 65534;

// One successful increment; returns how many conflicts it took to get there.
Result<std::uint64_t> incrementCounter(MetadataStore& store)
{
    std::uint64_t conflicts = 0;
    while (true) {
        auto listed = store.list("counter");
        if (!listed)
            return listed.error();
        const auto found = listed->records.find("counter");
        const bool exists = found != listed->records.end();
        const std::uint64_t value = exists ? std::stoull(found->second.value) : 0;
        CommitRequest request;
        request.mutations.push_back({ "counter", std::to_string(value + 1), exists ? found->second.modRevision : 0 });
        request.actor = "helper-" + std::to_string(::getpid());
        request.action = "increment";
        auto committed = store.commit(request);
        if (committed)
            return conflicts;
        if (committed.error().code != ErrorCode::Conflict)
            return committed.error();
        ++conflicts;
    }
}

int increment(const std::string& path, int count, const std::string& goFile)
{
    auto store = SqliteStore::open(path, false);
    if (!store) {
        std::cerr << store.error().describe() << std::endl;
        return 1;
    }
    std::cout << "ready" << std::endl;
    while (!std::filesystem::exists(goFile))
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::uint64_t conflicts = 0;
    for (int i = 0; i < count; ++i) {
        auto result = incrementCounter(**store);
        if (!result) {
            std::cerr << result.error().describe() << std::endl;
            return 1;
        }
        conflicts += *result;
    }
    std::cout << "done " << count << " " << conflicts << std::endl;
    return 0;
}

int hang(const std::string& path)
{
    SqliteStoreOptions options;
    options.beforeCommit = [] {
        std::cout << "in-transaction" << std::endl;
        while (true)
            ::pause();
    };
    auto store = SqliteStore::open(path, false, std::move(options));
    if (!store) {
        std::cerr << store.error().describe() << std::endl;
        return 1;
    }
    CommitRequest request;
    request.mutations = { { "a", "1", std::nullopt }, { "b", "1", std::nullopt }, { "c", "1", std::nullopt } };
    request.actor = "helper";
    request.action = "hang";
    auto committed = (*store)->commit(request);
    std::cerr << "commit returned: " << (committed ? "ok" : committed.error().describe()) << std::endl;
    return 1;
}

bool dropPrivileges()
{
    return ::setgroups(0, nullptr) == 0 && ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0;
}

int openOnly(const std::string& path, bool create, bool unprivileged)
{
    if (unprivileged && ::geteuid() == 0 && !dropPrivileges()) {
        std::cout << "skip cannot switch to user nobody" << std::endl;
        return 3;
    }
    auto store = SqliteStore::open(path, create);
    if (store)
        std::cout << "ok" << std::endl;
    else
        std::cout << "error\t" << errorCodeName(store.error().code) << "\t" << store.error().describe() << std::endl;
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 4 && args[0] == "increment")
        return increment(args[1], std::stoi(args[2]), args[3]);
    if (args.size() == 2 && args[0] == "hang")
        return hang(args[1]);
    if ((args.size() == 3 || args.size() == 4) && args[0] == "open")
        return openOnly(args[1], args[2] == "create", args.size() == 4 && args[3] == "--unprivileged");
    std::cerr << "usage: store_test_helper increment PATH COUNT GOFILE | hang PATH | open PATH create|existing "
                 "[--unprivileged]"
              << std::endl;
    return 2;
}
