// The bounded JSON reader every server-side decoder of caller or store JSON goes through (issue
// 25): depth and size are checked while parsing, so a deep document is refused without a deep
// value ever being built, walked or destroyed.
#include "core/admin/approvals.h"
#include "core/auth/access_policy.h"
#include "core/migration/migration_requests.h"
#include "core/plan/plan.h"
#include "core/util/json_input.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace shardmap::core {
namespace {

std::string nested(std::size_t depth, const std::string& inner = "1")
{
    return std::string(depth, '[') + inner + std::string(depth, ']');
}

TEST(JsonInput, ReadsADocumentWithinTheLimits)
{
    auto value = readJsonInput(R"({"a": [1, {"b": "two"}], "c": null})", "the test");
    ASSERT_TRUE(value) << value.error().describe();
    EXPECT_EQ((*value)["a"][1]["b"], "two");
    EXPECT_TRUE(checkJsonInput(R"({"a": [1, {"b": "two"}]})", "the test"));
}

TEST(JsonInput, NestingIsRefusedPastTheLimitNamingWhatAndTheDepth)
{
    EXPECT_TRUE(readJsonInput(nested(kMaxJsonDepth), "the plan"));
    EXPECT_TRUE(checkJsonInput(nested(kMaxJsonDepth), "the plan"));
    for (const std::string& text : { nested(kMaxJsonDepth + 1), nested(100'000), std::string(1'000'000, '['),
             R"({"newShards": [)" + nested(100'000) + "]}", std::string(200'000, '[') + std::string(3, ']') }) {
        SCOPED_TRACE(text.substr(0, 40));
        for (const Status& status :
            { Status(readJsonInput(text, "the plan").error()), checkJsonInput(text, "the plan") }) {
            ASSERT_FALSE(status);
            EXPECT_EQ(status.error().code, ErrorCode::InvalidArgument);
            EXPECT_EQ(status.error().message,
                "the plan nests arrays and objects more than 64 levels deep; at most 64 are accepted");
        }
    }
    // Objects count as arrays do.
    std::string objects;
    for (std::size_t i = 0; i < kMaxJsonDepth + 1; ++i)
        objects += R"({"a":)";
    objects += "1" + std::string(kMaxJsonDepth + 1, '}');
    EXPECT_FALSE(readJsonInput(objects, "the policy"));
    EXPECT_TRUE(readJsonInput(nested(3), "x", JsonLimits { 3, kMaxJsonBytes }));
    EXPECT_FALSE(readJsonInput(nested(4), "x", JsonLimits { 3, kMaxJsonBytes }));
}

TEST(JsonInput, SizeAndSyntaxAreRefusedNamingWhat)
{
    auto large = readJsonInput(R"(["0123456789"])", "the settings", JsonLimits { kMaxJsonDepth, 10 });
    ASSERT_FALSE(large);
    EXPECT_EQ(large.error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(large.error().message, "the settings is 14 bytes; at most 10 are accepted");
    for (const char* text : { "", "{nope", "[1,", "{\"a\": 1} trailing" }) {
        SCOPED_TRACE(text);
        auto bad = readJsonInput(text, "the policy");
        ASSERT_FALSE(bad);
        EXPECT_EQ(bad.error().code, ErrorCode::InvalidArgument);
        EXPECT_TRUE(bad.error().message.starts_with("the policy is not JSON: ")) << bad.error().message;
        EXPECT_FALSE(checkJsonInput(text, "the policy"));
    }
}

TEST(JsonInput, EveryDecoderOfCallerJsonRefusesADeepDocument)
{
    const std::string deep = nested(100'000);
    const std::string plan = R"({"version": 1, "baseRevision": 1, "moves": [], "newShards": [)" + deep + "]}";
    auto decodedPlan = Plan::decode(plan);
    ASSERT_FALSE(decodedPlan);
    EXPECT_EQ(decodedPlan.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(decodedPlan.error().message.find("the plan nests"), std::string::npos) << decodedPlan.error().message;

    auto policy = AccessPolicy::parse(R"({"version": 1, "roles": )" + deep + "}", "the policy");
    ASSERT_FALSE(policy);
    EXPECT_EQ(policy.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(policy.error().message.find("more than 64 levels"), std::string::npos) << policy.error().message;

    auto settings = readMigrationSettings(R"({"max_concurrent": )" + deep + "}");
    ASSERT_FALSE(settings);
    EXPECT_EQ(settings.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(settings.error().message.find("the settings nests"), std::string::npos);

    EXPECT_FALSE(decodeApproval(R"({"id": "ap-1", "summary": )" + deep + "}"));
    EXPECT_FALSE(decodeShard(R"({"id": "s1", "node": )" + deep + "}"));
    EXPECT_FALSE(decodeMigrationSettings(R"({"max_concurrent": )" + deep + "}"));
}

TEST(JsonInput, APlanStillReadsItsNewShardsWithoutReserialisingThem)
{
    Plan plan;
    plan.baseRevision = 7;
    plan.kind = "split";
    plan.subject = "s0";
    plan.newShards.push_back({ "s9", "n1", ShardState::Active, 10, 20 });
    plan.addMove({ "acme", "s0", "s9", "split", 3, 4 });
    auto decoded = Plan::decode(plan.encode());
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, plan);

    auto badState = Plan::decode(R"({"version": 1, "baseRevision": 1, "moves": [],
        "newShards": [{"id": "s9", "node": "n1", "state": "sleepy"}]})");
    ASSERT_FALSE(badState);
    EXPECT_NE(badState.error().message.find("\"state\" of new shard 1 of the plan is 'sleepy'"), std::string::npos);
    EXPECT_NE(badState.error().message.find("sleepy"), std::string::npos) << badState.error().message;
}

} // namespace
} // namespace shardmap::core
