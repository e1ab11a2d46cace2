// Typed identities, people and the files shardmapd re-reads (issue 25): a CN never passes for a URI
// SAN nor a DNS SAN for a CN, two identities of one person are one person, and a tokens file that
// goes missing, breaks or is readable by others leaves no token valid.
#include "core/auth/access_policy.h"
#include "core/auth/bearer_tokens.h"
#include "core/auth/peer_identity.h"
#include "tests/support/test_dir.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace shardmap::core {
namespace {

using testing::TempDir;

PeerIdentity cn(const std::string& name)
{
    return { IdentityKind::CommonName, name };
}

TEST(PeerIdentity, EachKindHasOneWrittenFormThatParsesBack)
{
    const std::pair<PeerIdentity, std::string> forms[] = {
        { { IdentityKind::Uri, "spiffe://example.org/shardmapd" }, "spiffe://example.org/shardmapd" },
        { { IdentityKind::Uri, "urn:uuid:1234" }, "uri:urn:uuid:1234" },
        { { IdentityKind::Dns, "alice" }, "dns:alice" },
        { cn("alice"), "alice" },
        { cn("spiffe://example.org/shardmapd"), "cn:spiffe://example.org/shardmapd" },
        { { IdentityKind::Token, "bob.ci" }, "token:bob.ci" },
    };
    for (const auto& [identity, text] : forms) {
        EXPECT_EQ(identity.text(), text);
        auto parsed = parseIdentity(text);
        ASSERT_TRUE(parsed) << parsed.error().describe();
        EXPECT_EQ(*parsed, identity) << text;
    }
    for (const char* bad : { "", "cn:", "ldap:alice", "a:b" }) {
        auto refused = IdentityPattern::parse(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_NE(refused.error().message.find("dns:NAME"), std::string::npos) << refused.error().message;
    }
}

TEST(PeerIdentity, ACommonNameNeverMatchesAUriOrADnsName)
{
    const auto uri = IdentityPattern::parse("spiffe://example.org/shardmapd");
    ASSERT_TRUE(uri);
    EXPECT_TRUE(uri->matches({ IdentityKind::Uri, "spiffe://example.org/shardmapd" }));
    EXPECT_FALSE(uri->matches(cn("spiffe://example.org/shardmapd")));

    const auto bare = IdentityPattern::parse("alice");
    ASSERT_TRUE(bare);
    EXPECT_TRUE(bare->matches(cn("alice")));
    EXPECT_TRUE(bare->matches({ IdentityKind::Token, "alice" }));
    EXPECT_FALSE(bare->matches({ IdentityKind::Dns, "alice" }));
    EXPECT_TRUE(IdentityPattern::parse("dns:alice")->matches({ IdentityKind::Dns, "alice" }));
    EXPECT_FALSE(IdentityPattern::parse("cn:alice")->matches({ IdentityKind::Token, "alice" }));
}

TEST(AccessPolicy, RolesAreLookedUpByKindAndName)
{
    auto policy = AccessPolicy::parse(R"({"version": 1, "roles": {"alice": "admin",
        "spiffe://example.org/shardmapd": "admin", "dns:grafana": "viewer", "token:ci": "operator",
        "cn:ci": "viewer"}})",
        "access.json");
    ASSERT_TRUE(policy) << policy.error().describe();
    EXPECT_EQ(policy->roleOf(cn("alice")), Role::Admin);
    EXPECT_EQ(policy->roleOf(PeerIdentity { IdentityKind::Token, "alice" }), Role::Admin);
    EXPECT_EQ(policy->roleOf(PeerIdentity { IdentityKind::Dns, "alice" }), Role::None) << "CN vera2, DNS SAN alice";
    EXPECT_EQ(policy->roleOf(cn("spiffe://example.org/shardmapd")), Role::None);
    EXPECT_EQ(policy->roleOf(PeerIdentity { IdentityKind::Uri, "spiffe://example.org/shardmapd" }), Role::Admin);
    EXPECT_EQ(policy->roleOf(PeerIdentity { IdentityKind::Dns, "grafana" }), Role::Viewer);
    EXPECT_EQ(policy->roleOf(PeerIdentity { IdentityKind::Token, "ci" }), Role::Operator);
    EXPECT_EQ(policy->roleOf(cn("ci")), Role::Viewer);

    // One identity named twice, and a bare name that could be read two ways, are mistakes.
    for (const char* bad : { R"({"version": 1, "roles": {"spiffe://x/a": "admin", "uri:spiffe://x/a": "viewer"}})",
             R"({"version": 1, "roles": {"a:b": "admin"}})" }) {
        auto refused = AccessPolicy::parse(bad, "access.json");
        ASSERT_FALSE(refused) << bad;
        EXPECT_NE(refused.error().message.find("access.json: roles"), std::string::npos) << refused.error().message;
    }
}

TEST(AccessPolicy, PeopleMakeACertificateAndATokenOnePerson)
{
    auto policy = AccessPolicy::parse(R"({"version": 1, "roles": {"bob": "operator", "token:bob.ci": "operator"},
        "people": {"bob": ["cn:bob", "token:bob.ci"], "olga": ["olga"]}})",
        "access.json");
    ASSERT_TRUE(policy) << policy.error().describe();
    EXPECT_TRUE(policy->samePerson("token:bob.ci", "bob"));
    EXPECT_FALSE(policy->samePerson("token:bob.ci", "olga"));
    EXPECT_FALSE(policy->samePerson("token:bob", "bob")) << "token:bob is not listed";
    EXPECT_TRUE(policy->samePerson("olga", "token:olga")) << "a bare name is the CN and the token";

    auto twice = AccessPolicy::parse(R"({"version": 1, "people": {"bob": ["cn:bob"], "eve": ["cn:bob"]}})", "p");
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().message.find("cn:bob is listed under both bob and eve"), std::string::npos);

    // Taking an identity away from its person lets it approve that person's requests: a loosening.
    auto apart = AccessPolicy::parse(R"({"version": 1, "roles": {"bob": "operator", "token:bob.ci": "operator"},
        "people": {"bob": ["cn:bob"], "olga": ["olga"]}})",
        "access.json");
    ASSERT_TRUE(apart);
    EXPECT_EQ(loosenedAccess(*policy, *apart), (std::vector<std::string> { "people: token:bob.ci no longer bob's" }));
    EXPECT_TRUE(loosenedAccess(*apart, *policy).empty());
}

class ReloadingFileTest : public ::testing::Test {
protected:
    void write(const std::string& text)
    {
        std::ofstream(m_path, std::ios::trunc) << text;
        std::filesystem::permissions(m_path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    }

    std::unique_ptr<ReloadingFile<TokenTable>> loadTokens()
    {
        ReloadOptions options;
        options.checkEvery = std::chrono::milliseconds(0);
        options.ownerOnly = true;
        options.keepLastGood = false;
        options.log = [this](LogLevel level, const std::string& message) { m_logged.emplace_back(level, message); };
        auto file = ReloadingFile<TokenTable>::load(m_path, &TokenTable::parse, options);
        EXPECT_TRUE(file) << file.error().describe();
        return file ? std::move(*file) : nullptr;
    }

    TempDir m_dir;
    const std::string m_path = m_dir.file("tokens");
    std::vector<std::pair<LogLevel, std::string>> m_logged;
};

TEST_F(ReloadingFileTest, AnEditOfTheSameSizeAndTimeIsSeen)
{
    write("a sha256:" + std::string(64, 'a') + "\n");
    auto tokens = loadTokens();
    ASSERT_TRUE(tokens);
    const auto time = std::filesystem::last_write_time(m_path);
    write("b sha256:" + std::string(64, 'a') + "\n");
    std::filesystem::last_write_time(m_path, time);
    ASSERT_EQ(tokens->current()->entries.size(), 1u);
    EXPECT_EQ(tokens->current()->entries[0].identity, "b");
    EXPECT_EQ(tokens->loads(), 2u);
}

TEST_F(ReloadingFileTest, AMissingBrokenOrSharedTokensFileLeavesNoTokenAndSaysSoOnce)
{
    const std::string line = tokenFileLine("ci", "secret");
    write(line + "\n");
    auto tokens = loadTokens();
    ASSERT_TRUE(tokens);
    EXPECT_EQ(tokens->current()->identityOf("secret"), "ci");

    std::filesystem::remove(m_path);
    EXPECT_EQ(tokens->current(), nullptr);
    EXPECT_EQ(tokens->current(), nullptr);
    write(line + "\n");
    ASSERT_NE(tokens->current(), nullptr);

    write(line + "\nbroken\n");
    EXPECT_EQ(tokens->current(), nullptr);
    EXPECT_NE(tokens->lastError().find("tokens:2: expected"), std::string::npos) << tokens->lastError();

    write(line + "\n");
    std::filesystem::permissions(m_path, std::filesystem::perms::group_read | std::filesystem::perms::others_read,
        std::filesystem::perm_options::add);
    EXPECT_EQ(tokens->current(), nullptr);
    EXPECT_NE(tokens->lastError().find("chmod 600"), std::string::npos) << tokens->lastError();

    write(line + "\n");
    EXPECT_EQ(tokens->current()->identityOf("secret"), "ci");
    std::vector<LogLevel> levels;
    for (const auto& [level, message] : m_logged)
        levels.push_back(level);
    EXPECT_EQ(levels,
        (std::vector<LogLevel> { LogLevel::Error, LogLevel::Info, LogLevel::Error, LogLevel::Error, LogLevel::Info }));

    // A tokens file others may read is refused from the start.
    std::filesystem::permissions(m_path, std::filesystem::perms::others_read, std::filesystem::perm_options::add);
    ReloadOptions secret;
    secret.ownerOnly = true;
    auto refused = ReloadingFile<TokenTable>::load(m_path, &TokenTable::parse, secret);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("may be read by other accounts (mode 0604)"), std::string::npos)
        << refused.error().message;
}

} // namespace
} // namespace shardmap::core
