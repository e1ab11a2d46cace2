// Index settings (issue 31): today's default, the one check with its sentences, the JSON form.
#include "core/util/index_settings.h"

#include <gtest/gtest.h>

using namespace shardmap::core;

namespace {

std::string problemsOf(const IndexSettings& settings)
{
    auto valid = validateIndexSettings(settings);
    return valid ? std::string() : valid.error().message;
}

} // namespace

TEST(IndexSettingsTest, TheDefaultIsTodaysIndexAndValid)
{
    const IndexSettings settings = defaultIndexSettings();
    EXPECT_EQ(settings.fieldNames(), (std::vector<std::string> { "title", "body", "tags" }));
    EXPECT_EQ(settings.tokenizer, Tokenizer::Unicode61);
    EXPECT_EQ(settings.removeDiacritics, 2);
    EXPECT_EQ(settings.prefixes, (std::vector<std::uint32_t> { 2, 3 }));
    EXPECT_EQ(problemsOf(settings), "");
}

TEST(IndexSettingsTest, BadSettingsAreRefusedWithEveryReason)
{
    IndexSettings settings = defaultIndexSettings();
    settings.fields.push_back({ "title", true, 1.0 });
    settings.fields.push_back({ "Bad", true, 1.0 });
    settings.fields.push_back({ "notes", false, 3.0 });
    settings.fields.push_back({ "heavy", true, 500.0 });
    settings.tokenChars = "-'";
    settings.prefixes = { 3, 2, 20 };
    const std::string problems = problemsOf(settings);
    EXPECT_NE(problems.find("field title is named twice"), std::string::npos) << problems;
    EXPECT_NE(problems.find("must start with a-z"), std::string::npos) << problems;
    EXPECT_NE(problems.find("notes is stored only"), std::string::npos) << problems;
    EXPECT_NE(problems.find("heavy has weight 500"), std::string::npos) << problems;
    EXPECT_NE(problems.find("token character '''"), std::string::npos) << problems;
    EXPECT_NE(problems.find("shortest first"), std::string::npos) << problems;
    EXPECT_NE(problems.find("1 to 8 characters, not 20"), std::string::npos) << problems;

    IndexSettings trigram = defaultIndexSettings();
    trigram.tokenizer = Tokenizer::Trigram;
    trigram.tokenChars = "-";
    EXPECT_NE(problemsOf(trigram).find("prefix indexes do not apply to trigram"), std::string::npos);
    EXPECT_NE(problemsOf(trigram).find("token characters apply to unicode61 and porter"), std::string::npos);
    IndexSettings folded = defaultIndexSettings();
    folded.caseSensitive = true;
    EXPECT_NE(problemsOf(folded).find("case_sensitive applies to trigram only"), std::string::npos);
    IndexSettings none;
    EXPECT_NE(problemsOf(none).find("at least one field"), std::string::npos);
    IndexSettings storedOnly;
    storedOnly.fields = { { "raw", false, 1.0 } };
    EXPECT_NE(problemsOf(storedOnly).find("no field is indexed"), std::string::npos);
    EXPECT_FALSE(parseTokenizer("snowball"));
    EXPECT_NE(parseTokenizer("snowball").error().message.find("unicode61, porter and trigram"), std::string::npos);
}

TEST(IndexSettingsTest, TheJsonFormRoundTripsAndIsChecked)
{
    IndexSettings settings = defaultIndexSettings();
    settings.tokenizer = Tokenizer::Porter;
    settings.tokenChars = "-_";
    settings.fields[0].weight = 5.0;
    settings.fields.push_back({ "raw", false, 1.0 });
    auto decoded = decodeIndexSettings(encodeIndexSettings(settings));
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, settings);

    IndexSettings trigram;
    trigram.fields = { { "code", true, 1.0 } };
    trigram.tokenizer = Tokenizer::Trigram;
    trigram.caseSensitive = true;
    auto back = decodeIndexSettings(encodeIndexSettings(trigram));
    ASSERT_TRUE(back) << back.error().describe();
    EXPECT_EQ(*back, trigram);

    auto minimal = decodeIndexSettings(R"({"fields":[{"name":"body"}]})");
    ASSERT_TRUE(minimal) << minimal.error().describe();
    EXPECT_EQ(minimal->tokenizer, Tokenizer::Unicode61);
    EXPECT_TRUE(minimal->prefixes.empty());
    EXPECT_DOUBLE_EQ(minimal->fields[0].weight, 1.0);

    EXPECT_FALSE(decodeIndexSettings("[1,2]"));
    EXPECT_FALSE(decodeIndexSettings(R"({"fields":[{"weight":2}]})"));
    auto bad = decodeIndexSettings(R"({"fields":[{"name":"body"}],"tokenizer":{"name":"snowball"}})");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("unknown tokenizer 'snowball'"), std::string::npos);
    auto invalid = decodeIndexSettings(R"({"fields":[{"name":"body","weight":0}]})");
    ASSERT_FALSE(invalid);
    EXPECT_NE(invalid.error().message.find("a weight is from 0.01 to 100"), std::string::npos);
}
