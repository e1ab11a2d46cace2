#pragma once

// The fenced blocks of the project's Markdown pages, for the tests that run what the pages tell
// people to type (issue 27, point 12): each block with its page, line, language, the heading it
// sits under and the `<!-- doc-test: ... -->` comment on the line before its fence, if any.

#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::testing {

struct DocBlock {
    std::string page; // relative to the source tree: "README.md", "docs/SHARD_MAP.md"
    int line = 0; // of the opening fence, from 1
    std::string language; // what follows the opening fence: "sh", "console", "" ...
    std::string heading; // the nearest Markdown heading above, "## A shard map by hand"
    std::string marker; // the text after "doc-test:" in the comment right before the fence, or ""
    std::string text; // the lines between the fences, the fence's indentation removed
};

namespace docblocks_detail {

inline std::string trimmed(const std::string& text)
{
    const auto begin = text.find_first_not_of(" \t");
    if (begin == std::string::npos)
        return {};
    return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

// "doc-test: ..." from a line that is only `<!-- doc-test: ... -->`, else "".
inline std::string markerOf(const std::string& line)
{
    const std::string text = trimmed(line);
    const std::string open = "<!-- doc-test:";
    const std::string close = "-->";
    if (!text.starts_with(open) || !text.ends_with(close))
        return {};
    return trimmed(text.substr(open.size(), text.size() - open.size() - close.size()));
}

} // namespace docblocks_detail

// Every fenced block of sourceDir/page, in order; empty when the page cannot be read.
inline std::vector<DocBlock> readDocBlocks(const std::string& sourceDir, const std::string& page)
{
    using namespace docblocks_detail;
    std::ifstream file(sourceDir + "/" + page);
    std::vector<DocBlock> blocks;
    std::string line, previous, heading;
    std::size_t indent = 0;
    bool inside = false;
    for (int number = 1; std::getline(file, line); ++number) {
        const std::string text = trimmed(line);
        if (!inside && text.starts_with("```")) {
            inside = true;
            indent = line.find('`');
            blocks.push_back({ page, number, text.substr(3), heading, markerOf(previous), {} });
        } else if (inside && text == "```") {
            inside = false;
        } else if (inside) {
            blocks.back().text += (line.size() >= indent ? line.substr(indent) : trimmed(line)) + "\n";
        } else if (line.starts_with("#")) {
            heading = line;
        }
        previous = line;
    }
    return blocks;
}

// The first block of a language under a heading ("### etcd users and roles"), or nullopt.
inline std::optional<DocBlock> docBlockUnder(
    const std::string& sourceDir, const std::string& page, const std::string& heading, const std::string& language)
{
    for (const auto& block : readDocBlocks(sourceDir, page)) {
        if (block.heading == heading && block.language == language)
            return block;
    }
    return std::nullopt;
}

} // namespace shardmap::testing
