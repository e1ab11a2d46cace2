#pragma once

// Splits text into the tokens a shard indexes, with SQLite's own FTS5 tokenizers (unicode61 with
// the shard's diacritics and token characters, porter stemming over it, trigram), so that every
// index engine of a shard finds "Café" or "runs" as FTS5 finds it: an engine other than FTS5 asks
// this class, never a tokenizer of its own.

#include "core/util/index_settings.h"
#include "core/util/result.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace shardmap::core {

// The FTS5 tokenizer a shard's index settings name, as FTS5's tokenize option takes it: the
// tokenizer's name, then its arguments ("porter", "unicode61", "remove_diacritics", "2",
// "tokenchars", "-_"; "trigram", "case_sensitive", "0"). Today's index: unicode61 remove_diacritics 2.
std::vector<std::string> fts5TokenizerArgs(const IndexSettings& settings);

// One tokenizer instance; not safe for concurrent use (unicode61 folds into a buffer it owns):
// give each thread its own, or guard one with a mutex.
class Fts5Tokens final {
public:
    // The tokenizer of these settings (their fields do not matter); none: today's unicode61.
    static Result<std::unique_ptr<Fts5Tokens>> open(const IndexSettings& settings);
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
