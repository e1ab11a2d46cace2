#include "core/util/failpoint.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <unistd.h>
#include <gtest/gtest.h>

using namespace shardmap::core;

namespace {

class FailpointTest : public ::testing::Test {
protected:
    void TearDown() override { ASSERT_TRUE(setFailpoints("").ok()); }
};

TEST_F(FailpointTest, UnconfiguredPointsDoNothing)
{
    ASSERT_TRUE(setFailpoints("").ok());
    EXPECT_TRUE(failpoint("anything").ok());
    EXPECT_EQ(failpointHits("anything"), 0U);
}

TEST_F(FailpointTest, ErrorFiresEveryTimeWithoutCount)
{
    ASSERT_TRUE(setFailpoints("a.b=error").ok());
    for (int i = 0; i < 3; ++i) {
        auto status = failpoint("a.b");
        ASSERT_FALSE(status.ok());
        EXPECT_EQ(status.error().code, ErrorCode::Unavailable);
        EXPECT_NE(status.error().message.find("a.b"), std::string::npos);
    }
    EXPECT_TRUE(failpoint("a.c").ok());
    EXPECT_EQ(failpointHits("a.b"), 3U);
}

TEST_F(FailpointTest, NthHitOnlyOrNthAndLater)
{
    ASSERT_TRUE(setFailpoints("once=error@2;later=error@2+").ok());
    EXPECT_TRUE(failpoint("once").ok());
    EXPECT_FALSE(failpoint("once").ok());
    EXPECT_TRUE(failpoint("once").ok());
    EXPECT_TRUE(failpoint("later").ok());
    EXPECT_FALSE(failpoint("later").ok());
    EXPECT_FALSE(failpoint("later").ok());
}

TEST_F(FailpointTest, SleepStallsTheCaller)
{
    ASSERT_TRUE(setFailpoints("slow=sleep(60)").ok());
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(failpoint("slow").ok());
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(60));
}

// hold(PATH) keeps the caller until the test creates the file, however long that takes.
TEST_F(FailpointTest, HoldKeepsTheCallerUntilTheFileExists)
{
    char dir[] = "/tmp/failpoint-hold-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string gate = std::string(dir) + "/go";
    ASSERT_TRUE(setFailpoints("gated=hold(" + gate + ")@1").ok());
    std::atomic<bool> passed { false };
    std::thread caller([&] {
        EXPECT_TRUE(failpoint("gated").ok());
        passed = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(passed) << "went on before the file existed";
    std::FILE* file = std::fopen(gate.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fclose(file);
    caller.join();
    EXPECT_TRUE(passed);
    EXPECT_TRUE(failpoint("gated").ok()) << "@1: the second hit does not wait";
    std::remove(gate.c_str());
    ::rmdir(dir);
}

TEST_F(FailpointTest, MalformedSpecsAreRefusedAndKeepThePreviousOnes)
{
    ASSERT_TRUE(setFailpoints("kept=error").ok());
    for (const char* bad : { "noequals", "=error", "x=explode", "x=sleep(abc)", "x=error@0", "x=error@", "x=hold()" }) {
        auto status = setFailpoints(bad);
        ASSERT_FALSE(status.ok()) << bad;
        EXPECT_EQ(status.error().code, ErrorCode::InvalidArgument) << bad;
    }
    EXPECT_FALSE(failpoint("kept").ok());
}

} // namespace
