#include "core/shard/fts5_tokens.h"

// Fts5Tokens' implementation: FTS5's API reached through an in-memory database, the tokenizer a
// shard's settings name asked for each text's tokens.

#include <iterator>
#include <sqlite3.h>

namespace shardmap::core {

struct Fts5Tokens::Impl {
    sqlite3* db = nullptr;
    fts5_tokenizer api {};
    Fts5Tokenizer* tokenizer = nullptr;

    ~Impl()
    {
        if (tokenizer)
            api.xDelete(tokenizer);
        if (db)
            sqlite3_close(db);
    }
};

namespace {

// FTS5 hands its API out only through a pointer bound to `SELECT fts5(?1)` (sqlite.org/fts5.html,
// "Extending FTS5").
fts5_api* fts5Api(sqlite3* db)
{
    fts5_api* api = nullptr;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr) == SQLITE_OK) {
        sqlite3_bind_pointer(stmt, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
        sqlite3_step(stmt);
    }
    sqlite3_finalize(stmt);
    return api;
}

Error tokenizerError(const std::string& what)
{
    return makeError(ErrorCode::Internal, "the FTS5 tokenizer: " + what);
}

} // namespace

Fts5Tokens::Fts5Tokens(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}

Fts5Tokens::~Fts5Tokens() = default;

std::vector<std::string> fts5TokenizerArgs(const IndexSettings& settings)
{
    if (settings.tokenizer == Tokenizer::Trigram)
        return { "trigram", "case_sensitive", settings.caseSensitive ? "1" : "0" };
    std::vector<std::string> args;
    if (settings.tokenizer == Tokenizer::Porter)
        args.emplace_back("porter");
    args.insert(args.end(), { "unicode61", "remove_diacritics", std::to_string(settings.removeDiacritics) });
    if (!settings.tokenChars.empty())
        args.insert(args.end(), { "tokenchars", settings.tokenChars });
    return args;
}

Result<std::unique_ptr<Fts5Tokens>> Fts5Tokens::open()
{
    return open(defaultIndexSettings());
}

Result<std::unique_ptr<Fts5Tokens>> Fts5Tokens::open(const IndexSettings& settings)
{
    auto impl = std::make_unique<Impl>();
    if (sqlite3_open_v2(":memory:", &impl->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr) != SQLITE_OK)
        return tokenizerError("cannot open an in-memory database");
    fts5_api* api = fts5Api(impl->db);
    if (!api)
        return tokenizerError("this SQLite has no FTS5");
    const std::vector<std::string> args = fts5TokenizerArgs(settings);
    const std::string& name = args.front();
    void* userData = nullptr;
    if (api->xFindTokenizer(api, name.c_str(), &userData, &impl->api) != SQLITE_OK)
        return tokenizerError("no " + name + " tokenizer");
    std::vector<const char*> options;
    for (std::size_t i = 1; i < args.size(); ++i)
        options.push_back(args[i].c_str());
    if (impl->api.xCreate(userData, options.data(), static_cast<int>(options.size()), &impl->tokenizer) != SQLITE_OK)
        return tokenizerError("cannot create the " + name + " tokenizer");
    return std::unique_ptr<Fts5Tokens>(new Fts5Tokens(std::move(impl)));
}

Status Fts5Tokens::tokenize(std::string_view text, const TokenSink& token)
{
    const auto onToken = [](void* context, int /*flags*/, const char* bytes, int size, int start, int end) {
        (*static_cast<const TokenSink*>(context))(std::string_view(bytes, static_cast<std::size_t>(size)),
            static_cast<std::size_t>(start), static_cast<std::size_t>(end));
        return SQLITE_OK;
    };
    auto* context = const_cast<void*>(static_cast<const void*>(&token));
    const int rc = m_impl->api.xTokenize(
        m_impl->tokenizer, context, FTS5_TOKENIZE_DOCUMENT, text.data(), static_cast<int>(text.size()), onToken);
    if (rc != SQLITE_OK)
        return tokenizerError(sqlite3_errstr(rc));
    return {};
}

Result<std::vector<std::string>> Fts5Tokens::tokens(std::string_view text)
{
    std::vector<std::string> out;
    auto status = tokenize(text, [&](std::string_view token, std::size_t, std::size_t) { out.emplace_back(token); });
    if (!status)
        return status.error();
    return out;
}

} // namespace shardmap::core
