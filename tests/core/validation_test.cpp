#include "core/util/validation.h"

#include <gtest/gtest.h>

using namespace shardmap::core;

TEST(ValidationTest, SpaceIdAcceptsTheDocumentedAlphabet)
{
    EXPECT_TRUE(validateSpaceId("tenant-01"));
    EXPECT_TRUE(validateSpaceId("a.b:c_d-E9"));
    EXPECT_TRUE(validateSpaceId(std::string(128, 'x')));
}

TEST(ValidationTest, SpaceIdRefusalsSayWhy)
{
    EXPECT_EQ(validateSpaceId("").error().message, "space id is empty");
    const auto tooLong = validateSpaceId(std::string(129, 'x'));
    ASSERT_FALSE(tooLong);
    EXPECT_NE(tooLong.error().message.find("129 characters long; the limit is 128"), std::string::npos);
    const auto badChar = validateSpaceId("ten ant");
    ASSERT_FALSE(badChar);
    EXPECT_EQ(badChar.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(badChar.error().message.find("position 3"), std::string::npos);
    EXPECT_FALSE(validateSpaceId("a/b"));
}

TEST(ValidationTest, ShardIdIsAFileSafeName)
{
    EXPECT_TRUE(validateShardId("s-01.a"));
    EXPECT_FALSE(validateShardId("../etc"));
    EXPECT_FALSE(validateShardId(".hidden"));
    EXPECT_FALSE(validateShardId("a:b"));
    EXPECT_FALSE(validateShardId(std::string(65, 's')));
}

TEST(ValidationTest, DocIdLimits)
{
    EXPECT_TRUE(validateDocId("doc/with spaces/ünïcode"));
    EXPECT_FALSE(validateDocId(""));
    EXPECT_FALSE(validateDocId(std::string(513, 'd')));
    EXPECT_FALSE(validateDocId("tab\there"));
    EXPECT_FALSE(validateDocId(std::string("\xff\xfe", 2)));
}

TEST(ValidationTest, FieldNames)
{
    EXPECT_TRUE(validateFieldName("title"));
    EXPECT_TRUE(validateFieldName("body_2"));
    EXPECT_FALSE(validateFieldName("Title"));
    EXPECT_FALSE(validateFieldName("_other"));
    EXPECT_FALSE(validateFieldName("2x"));
    EXPECT_FALSE(validateFieldName(std::string(33, 'a')));
}

TEST(ValidationTest, Utf8)
{
    EXPECT_TRUE(isValidUtf8("plain"));
    EXPECT_TRUE(isValidUtf8("\xe2\x82\xac"));
    EXPECT_FALSE(isValidUtf8("\xe2\x82"));
    EXPECT_FALSE(isValidUtf8("\xc0\xaf"));
    // What protobuf refuses in a string field: overlong forms, surrogates, past U+10FFFF.
    EXPECT_FALSE(isValidUtf8("\xe0\x80\xaf"));
    EXPECT_FALSE(isValidUtf8("\xed\xa0\x80"));
    EXPECT_FALSE(isValidUtf8("\xf0\x80\x80\xaf"));
    EXPECT_FALSE(isValidUtf8("\xf4\x90\x80\x80"));
    EXPECT_TRUE(isValidUtf8("\xed\x9f\xbf\xf4\x8f\xbf\xbf\xf0\x90\x80\x80"));
}
