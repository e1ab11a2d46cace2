#pragma once

// The search query language of a space: its parse into one syntax tree for every index engine, and
// its compilation to an FTS5 MATCH expression over a shard's field columns.

#include "core/util/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

// The searchable fields of a shard. Field `name` is indexed in the FTS5 column "f_<name>";
// every other field of a document is indexed in the catch-all column "f__other". `storedOnly`
// names the shard's fields that are kept but never indexed (IndexField::indexed false): a query
// naming one (`notes:x`) is refused, saying so, rather than matching nothing.
struct QuerySchema {
    std::vector<std::string> fields;
    std::vector<std::string> storedOnly = {};
};

// Limits that keep one query from costing the node more than it should, the same for every index
// engine (docs/NODE.md, "Search"). A query beyond one is InvalidArgument, never truncated.
inline constexpr std::size_t kMaxQueryBytes = 4096;
inline constexpr int kMaxQueryDepth = 32;
inline constexpr int kMaxQueryTerms = 256;
// Each prefix stands for a bounded set of terms (XapianIndexOptions::maxPrefixExpansion); this
// bounds how many sets one query unions.
inline constexpr int kMaxQueryPrefixes = 16;
// The longest word a query may search for, in bytes as typed: a run of letters, digits and
// non-ASCII characters. No one searches for a longer one, and Xapian's terms end at 245 bytes.
inline constexpr std::size_t kMaxQueryWordBytes = 200;

std::string ftsColumnForField(std::string_view field);
inline constexpr std::string_view kOtherColumn = "f__other";

// A parsed query: what every index engine searches for. A Term is one string of the query (a bare
// word or a quoted phrase), which the engine's tokenizer may split into several tokens, searched as
// a phrase; `prefix` makes its last token a prefix. And/Or have two or more operands; Not too, and
// matches its first operand without any of the others (`a NOT b NOT c`); Field has exactly one
// (`text` names the field).
enum class QueryNodeKind { Term, And, Or, Not, Field };

struct QueryNode {
    QueryNodeKind kind = QueryNodeKind::Term;
    std::string text; // Term: the text to search for; Field: the field's name
    bool prefix = false; // Term: prefix search on the last word
    std::vector<QueryNode> children; // And/Or/Not: the operands; Field: exactly one
};

// Parses the user query language (below) within the limits above; the errors are compileQuery's.
Result<QueryNode> parseQuery(std::string_view query, const QuerySchema& schema);

// Compiles the user query language into an FTS5 MATCH expression over the text columns.
//
// Language: terms (`fox`), phrases (`"quick brown fox"`), prefixes (`qu*`, also on the last word
// of a phrase), AND / OR / NOT in capitals (lower case they are terms), implicit AND between
// adjacent terms, parentheses, and `field:term` / `field:"phrase"` / `field:(expr)` for a field of
// the schema. Precedence, loosest first: OR, AND, NOT (binary: `a NOT b`). Unqualified
// expressions search every text column; the compiled expression never matches the space column.
// The result is a single FTS5 operand (parenthesized where needed), so a caller can safely write
// "sp : <token> AND " + result. Every user term is emitted as a quoted FTS5 string.
// Errors (InvalidArgument) name what is wrong and the byte offset where it was found; a query
// beyond the limits above, or nested too deeply for FTS5's parser, is rejected the same way.
Result<std::string> compileQuery(std::string_view query, const QuerySchema& schema);

} // namespace shardmap::core
