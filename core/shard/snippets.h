#pragma once

// A hit's snippet for an index engine that does not make its own (Xapian): the window of a field's
// text with the most of the query's matches, the matches marked [[so]], as the node's FTS5
// snippets are (snippet(fts, col, '[[', ']]', '…', 12)), so a client sees the same form from
// every engine.

#include "core/query/query_compiler.h"
#include "core/shard/fts5_tokens.h"
#include "core/util/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

inline constexpr std::string_view kSnippetOpen = "[[";
inline constexpr std::string_view kSnippetClose = "]]";
inline constexpr std::string_view kSnippetEllipsis = "…";
inline constexpr int kSnippetTokens = 12;

// What a snippet marks: the query's terms that a document matches by having them (those under a
// NOT's excluded operands are left out), as the shard's tokenizer splits them. A phrase is
// marked where all its tokens stand in a row; `prefix` makes its last token a prefix. `field`
// is the field a `field:` qualifier names, empty for every field.
struct SnippetPhrase {
    std::string field;
    std::vector<std::string> tokens;
    bool prefix = false;
};

Result<std::vector<SnippetPhrase>> snippetPhrases(const QueryNode& query, Fts5Tokens& tokenizer);

struct Snippet {
    std::string text;
    int marks = 0; // matched phrases marked in `text`
};

// The snippet of one field's text: at most `maxTokens` tokens around the matches, '…' where the
// text was cut; the text's first tokens when nothing matches.
Result<Snippet> makeSnippet(std::string_view text, std::string_view field, const std::vector<SnippetPhrase>& phrases,
    Fts5Tokens& tokenizer, int maxTokens = kSnippetTokens);

} // namespace shardmap::core
