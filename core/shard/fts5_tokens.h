#pragma once

// Splits text into the tokens a shard indexes, with SQLite's own FTS5 tokenizer (unicode61,
// diacritics removed, case folded), so that every index engine of a shard finds "Café" as FTS5
// finds it: an engine other than FTS5 asks this class, never a tokenizer of its own.

#include "core/util/result.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace shardmap::core {

// The tokenizer arguments a shard's FTS5 table is created with (core/shard/shard_store.cpp).
inline constexpr const char* kShardTokenizer = "unicode61";
inline constexpr const char* kShardTokenizerOptions[] = { "remove_diacritics", "2" };

// One tokenizer instance; not safe for concurrent use (unicode61 folds into a buffer it owns):
// give each thread its own, or guard one with a mutex.
class Fts5Tokens final {
public:
    static Result<std::unique_ptr<Fts5Tokens>> open();
    ~Fts5Tokens();
    Fts5Tokens(const Fts5Tokens&) = delete;
    Fts5Tokens& operator=(const Fts5Tokens&) = delete;

    // Calls `token` with each token of `text` in order and the byte range of `text` it came from.
    using TokenSink = std::function<void(std::string_view token, std::size_t start, std::size_t end)>;
    Status tokenize(std::string_view text, const TokenSink& token);
    // The tokens of `text`, as a vector.
    Result<std::vector<std::string>> tokens(std::string_view text);

private:
    struct Impl;
    explicit Fts5Tokens(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace shardmap::core
