#pragma once

// What a shard's full-text index is built with (issue 31): its fields (indexed or stored only, a
// BM25 weight each), its tokenizer and that tokenizer's options, and its prefix indexes. The body
// of an index template (core/map: named, versioned records in the shard map); the node builds a
// shard's index from it and records it in the shard's file. One check (validateIndexSettings) and
// one JSON form, used by the map, the node, shardmapctl and the console alike.

#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

struct IndexField {
    std::string name;
    // false: the value is kept with the document and returned, never searched (FTS5's UNINDEXED).
    bool indexed = true;
    // Its BM25 weight (FTS5's bm25() column weight; Xapian: the within-document frequency each of
    // its words adds). kMinFieldWeight to kMaxFieldWeight; 1 for a stored-only field.
    double weight = 1.0;
    bool operator==(const IndexField&) const = default;
};

// unicode61: words of letters and digits (Unicode 6.1), case folded. porter: English stemming over
// unicode61 ("running" and "runs" match "run"). trigram: every 3 characters, so that any substring
// of three or more characters matches (code search).
enum class Tokenizer { Unicode61, Porter, Trigram };

const char* tokenizerName(Tokenizer tokenizer);
// InvalidArgument naming the tokenizers there are otherwise.
Result<Tokenizer> parseTokenizer(std::string_view name);

struct IndexSettings {
    std::vector<IndexField> fields;
    Tokenizer tokenizer = Tokenizer::Unicode61;
    // unicode61 and porter: 0 keeps diacritics, 1 removes them (FTS5's old rule), 2 removes them
    // also from characters that have several.
    int removeDiacritics = 2;
    // unicode61 and porter: characters that count as part of a word besides letters and digits
    // (e.g. "-_" so that "e-mail" is one word); printable ASCII punctuation only, no quote.
    std::string tokenChars;
    // trigram: case counts when matching.
    bool caseSensitive = false;
    // Lengths of the prefix indexes (a query "ab*" is one lookup when 2 is among them); sorted.
    std::vector<std::uint32_t> prefixes;

    // The names of every field, and of the indexed ones, in order.
    std::vector<std::string> fieldNames() const;
    std::vector<std::string> indexedFieldNames() const;
    // The field named so, or null.
    const IndexField* field(std::string_view name) const;
    bool operator==(const IndexSettings&) const = default;
};

inline constexpr std::size_t kMaxIndexFields = 32;
inline constexpr double kMinFieldWeight = 0.01;
inline constexpr double kMaxFieldWeight = 100.0;
inline constexpr std::size_t kMaxTokenChars = 32;
inline constexpr std::size_t kMaxPrefixIndexes = 4;
inline constexpr std::uint32_t kMaxPrefixLength = 8;

// Today's index, which every shard made before templates has: title, body and tags, indexed,
// weight 1; unicode61 removing diacritics (2); prefix indexes of 2 and 3 characters.
IndexSettings defaultIndexSettings();

// Ok, or InvalidArgument with one sentence per problem found, joined by "; ": no field, too many,
// a bad or duplicate name, no indexed field, a weight out of range or on a stored-only field, an
// option the tokenizer does not take (token characters or diacritics on trigram, case on
// unicode61), a bad token character, a bad, duplicate or unsorted prefix length, prefixes on
// trigram.
Status validateIndexSettings(const IndexSettings& settings);

// The JSON form (an object: fields [{name, indexed, weight}], tokenizer {name, remove_diacritics,
// token_chars | case_sensitive}, prefixes [..]); encode writes every key, decode takes a missing
// one as defaultIndexSettings()'s tokenizer options, no prefixes and weight 1, and checks the
// result with validateIndexSettings.
std::string encodeIndexSettings(const IndexSettings& settings);
Result<IndexSettings> decodeIndexSettings(std::string_view json);

} // namespace shardmap::core
