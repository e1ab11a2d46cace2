// shardmapctl's index template commands (issue 31), the real binary against a real SQLite store
// and a real node: list, show, create (from a file, from another template with edits), diff,
// the shard list's TEMPLATE column, the map diff, and every refusal with its sentence.
#include "ctl_run.h"
#include "node_test_helpers.h"

#include <fstream>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

class CtlTemplateTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(ctl({ "init" }).code, 0); }

    CtlRun ctl(std::vector<std::string> args) { return runCtl(m_dir, "sqlite:" + m_dir.file("map.db"), args); }

    TempDir m_dir;
};

} // namespace

TEST_F(CtlTemplateTest, CreatesVersionsAndListsShowsAndDiffsThem)
{
    auto listed = ctl({ "template", "list" });
    ASSERT_EQ(listed.code, 0) << listed.err;
    EXPECT_NE(listed.out.find("default:1  unicode61  title, body, tags  2 3"), std::string::npos) << listed.out;

    auto first = ctl({ "template", "create", "stemmed", "--tokenizer", "porter", "--field", "title=3", "--stored-field",
        "raw", "--description", "English stemming" });
    ASSERT_EQ(first.code, 0) << first.err;
    EXPECT_NE(first.out.find("index template stemmed:1 created"), std::string::npos) << first.out;
    auto second = ctl({ "--json", "template", "create", "stemmed", "--like", "stemmed", "--remove-field", "tags",
        "--prefixes", "none" });
    ASSERT_EQ(second.code, 0) << second.err;
    const auto created = second.parsed();
    EXPECT_EQ(created["version"], 2);
    EXPECT_EQ(created["changes"].size(), 2u) << created.dump();
    EXPECT_TRUE(created["settings"]["prefixes"].empty());

    auto shown = ctl({ "--json", "template", "show", "stemmed:1" }).parsed();
    EXPECT_EQ(shown["settings"]["tokenizer"]["name"], "porter");
    EXPECT_EQ(shown["settings"]["fields"][0]["weight"], 3.0);
    EXPECT_EQ(shown["settings"]["fields"][3]["indexed"], false);
    EXPECT_EQ(shown["description"], "English stemming");
    auto text = ctl({ "template", "show", "stemmed" });
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("template stemmed:2"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("raw    stored only  -"), std::string::npos) << text.out;

    auto diff = ctl({ "template", "diff", "default", "stemmed" });
    ASSERT_EQ(diff.code, 0) << diff.err;
    EXPECT_NE(diff.out.find("default:1 -> stemmed:2: 5 change(s)"), std::string::npos) << diff.out;
    EXPECT_NE(diff.out.find("field tags removed: documents keep its values"), std::string::npos) << diff.out;
    auto same = ctl({ "--json", "template", "diff", "stemmed:2", "stemmed:2" }).parsed();
    EXPECT_TRUE(same["changes"].empty());

    auto all = ctl({ "--json", "template", "list" }).parsed();
    ASSERT_EQ(all["templates"].size(), 3u);
    auto mapDiff = ctl({ "--json", "map", "diff", "0", std::to_string(all["revision"].get<int>()) }).parsed();
    EXPECT_EQ(mapDiff["templates_added"], (nlohmann::json { "stemmed:1", "stemmed:2" }));
}

TEST_F(CtlTemplateTest, CreatesFromASettingsFile)
{
    const std::string file = m_dir.file("code.json");
    std::ofstream(file) << R"({"fields":[{"name":"path","weight":2},{"name":"code"}],)"
                        << R"("tokenizer":{"name":"trigram","case_sensitive":true}})";
    auto created = ctl({ "--json", "template", "create", "code", "--file", file });
    ASSERT_EQ(created.code, 0) << created.err;
    EXPECT_EQ(created.parsed()["settings"]["tokenizer"]["case_sensitive"], true);
    EXPECT_EQ(created.parsed()["settings"]["fields"][0]["weight"], 2.0);
}

TEST_F(CtlTemplateTest, RefusesBadTemplatesWithTheReasonAndChangesNothing)
{
    const auto refused = [&](std::vector<std::string> args, int code, const std::string& sentence) {
        auto run = ctl(args);
        EXPECT_EQ(run.code, code) << run.err;
        EXPECT_NE(run.err.find(sentence), std::string::npos) << run.err;
    };
    refused({ "template", "create", "default", "--tokenizer", "porter" }, 2, "today's built-in index");
    refused({ "template", "create", "x", "--tokenizer", "snowball" }, 2,
        "the tokenizers are unicode61, porter and trigram");
    refused({ "template", "create", "x", "--field", "title=heavy" }, 2, "is not a number");
    refused({ "template", "create", "x", "--field", "title=500" }, 2, "a weight is from 0.01 to 100");
    refused({ "template", "create", "x", "--remove-field", "nope" }, 2, "there is no field nope");
    refused({ "template", "create", "x", "--tokenizer", "trigram", "--token-chars", "-" }, 2,
        "token characters apply to unicode61 and porter");
    refused({ "template", "create", "x", "--prefixes", "2,two" }, 2, "--prefixes takes lengths");
    refused({ "template", "create", "x", "--like", "missing" }, 3, "no index template missing");
    refused({ "template", "create", "x", "--file", m_dir.file("none.json") }, 3, "cannot read");
    const std::string bad = m_dir.file("bad.json");
    std::ofstream(bad) << R"({"fields":[{"name":"a"},{"name":"a"}]})";
    refused({ "template", "create", "x", "--file", bad }, 2, "field a is named twice");
    refused({ "template", "show", "nothing" }, 3, "no index template nothing");
    refused({ "template", "show", "default:2" }, 3, "index template default has no version 2; its newest is 1");
    refused({ "template", "show", "Bad:1" }, 2, "must be 1-64 characters");
    ASSERT_EQ(ctl({ "template", "create", "plain", "--like", "default", "--field", "body=2" }).code, 0);
    refused({ "template", "create", "plain", "--like", "plain" }, 5, "has these settings already");
    EXPECT_EQ(ctl({ "--json", "template", "list" }).parsed()["templates"].size(), 2u);
}

TEST_F(CtlTemplateTest, TheShardListNamesEachShardsTemplate)
{
    auto node = NodeProcess::start(m_dir.file("node0"));
    ASSERT_TRUE(node);
    ASSERT_EQ(ctl({ "node", "add", "n0", node->address() }).code, 0);
    ASSERT_EQ(ctl({ "shard", "create", "s0", "--node", "n0" }).code, 0);
    auto listed = ctl({ "shard", "list" });
    ASSERT_EQ(listed.code, 0) << listed.err;
    EXPECT_NE(listed.out.find("TEMPLATE"), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find("default:1"), std::string::npos) << listed.out;
    auto shards = ctl({ "--json", "shard", "list" }).parsed();
    EXPECT_EQ(shards["shards"][0]["template"], "default");
    EXPECT_EQ(shards["shards"][0]["template_version"], 1);
}

// A version that drops a field says which spaces still hold documents in it, asked of the nodes of
// the shards built with the template; a shard whose node does not answer is named as unknown.
TEST_F(CtlTemplateTest, ADiffThatDropsAFieldNamesTheSpacesWithDocumentsInIt)
{
    auto node = NodeProcess::start(m_dir.file("node0"));
    ASSERT_TRUE(node);
    auto gone = NodeProcess::start(m_dir.file("node1"));
    ASSERT_TRUE(gone);
    ASSERT_EQ(ctl({ "node", "add", "n0", node->address() }).code, 0);
    ASSERT_EQ(ctl({ "node", "add", "n1", gone->address() }).code, 0);
    ASSERT_EQ(ctl({ "shard", "create", "s0", "--node", "n0" }).code, 0);
    ASSERT_EQ(ctl({ "shard", "create", "s1", "--node", "n1" }).code, 0);
    std::vector<v1::Document> docs;
    for (int i = 0; i < 3; ++i) {
        docs.push_back(makeDoc("tagged", "t" + std::to_string(i), 1, "tagged body"));
        (*docs.back().mutable_fields())["tags"] = "red blue";
    }
    docs.push_back(makeDoc("tagged", "untagged", 1, "no tags here"));
    docs.push_back(makeDoc("plain", "p", 1, "plain body"));
    ASSERT_TRUE(setOwner(node->stub(), "s0", "tagged", 1).ok());
    ASSERT_TRUE(setOwner(node->stub(), "s0", "plain", 1).ok());
    v1::BulkWriteResponse written;
    ASSERT_TRUE(bulkWrite(node->stub(), "s0", docs, 1, &written).ok());
    ASSERT_EQ(ctl({ "template", "create", "untagged", "--remove-field", "tags" }).code, 0);
    gone.reset();

    auto diff = ctl({ "template", "diff", "default", "untagged" });
    ASSERT_EQ(diff.code, 0) << diff.err;
    EXPECT_NE(diff.out.find("space tagged has 3 documents with field tags (shard s0): after the reindex their values "
                            "are searched as other text, no longer by tags:term"),
        std::string::npos)
        << diff.out;
    EXPECT_EQ(diff.out.find("space plain"), std::string::npos) << diff.out;
    EXPECT_NE(diff.out.find("not known for shard s1 (node n1)"), std::string::npos) << diff.out;
    auto asJson = ctl({ "--json", "template", "diff", "default", "untagged" }).parsed();
    EXPECT_EQ(asJson["removed_fields_in_use"].size(), 2u) << asJson.dump();

    auto none = ctl({ "--json", "template", "diff", "untagged", "default" }).parsed();
    EXPECT_TRUE(none["removed_fields_in_use"].empty()) << "adding a field back drops nothing";
}
