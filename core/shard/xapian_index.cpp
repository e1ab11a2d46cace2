#include "core/shard/xapian_index.h"

// XapianIndex's implementation: a row's tokens as terms (with two-character prefix terms, as FTS5's
// prefix='2' makes them), uncommitted changes in one transaction, and the query tree turned into a Xapian query.

#include "core/shard/fts5_tokens.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <mutex>
#include <unistd.h>
#include <xapian.h>

namespace shardmap::core {

namespace {

// Xapian refuses terms over 245 bytes (a field prefix takes up to 35). A query's longer words are
// refused by the parser (kMaxQueryWordBytes); a document's longer tokens are indexed cut there and
// marked with a byte no UTF-8 text holds, so that no word matches them and prefixes still do, as
// in FTS5, which keeps them whole (NODE.md, "Search").
constexpr std::size_t kMaxTokenBytes = kMaxQueryWordBytes;
constexpr char kCutTokenMark = '\xff';
// A phrase whose last word is a prefix stands for at most this many phrases' worth of terms.
constexpr std::uint32_t kMaxPhrasePrefixExpansion = 64;
constexpr const char* kSeqKey = "shardmap.last_seq";
// Bare positions between two fields of a row: longer than any phrase a query may hold.
constexpr Xapian::termpos kFieldGap = 1000;

std::string spaceTerm(const std::string& space)
{
    return "S:" + space;
}

// A bare token's first two characters are a term of their own (as FTS5's prefix='2'), so that
// `ab*` over every field is one term, exact and cheap: the widest prefix a query asks for often,
// and the one whose expansion would cost most. Three characters and more expand to the terms they
// name (a bounded set, maxPrefixExpansion): a three-character prefix term as well cost about a
// quarter of the ingest time, for prefixes whose expansions are short (docs/BENCHMARKS.md).
constexpr std::size_t kPrefixTermCharacters = 2;

// Appends `token` to `term`, cut to kMaxTokenBytes on a character boundary and marked if longer.
void appendToken(std::string& term, std::string_view token)
{
    if (token.size() <= kMaxTokenBytes) {
        term.append(token);
        return;
    }
    std::size_t cut = kMaxTokenBytes;
    while (cut > 0 && (static_cast<unsigned char>(token[cut]) & 0xC0) == 0x80)
        --cut;
    term.append(token.substr(0, cut));
    term.push_back(kCutTokenMark);
}

std::string prefixTerm(std::string_view stem)
{
    return "P:" + std::string(stem);
}

// The byte length of the first `count` UTF-8 characters of `word`, or npos when it has fewer.
std::size_t charactersBytes(std::string_view word, std::size_t count)
{
    std::size_t characters = 0;
    for (std::size_t at = 0; at < word.size(); ++at) {
        if ((static_cast<unsigned char>(word[at]) & 0xC0) == 0x80)
            continue;
        if (characters == count)
            return at;
        ++characters;
    }
    return characters == count ? word.size() : std::string_view::npos;
}

void addPrefixTerm(Xapian::Document& doc, std::string_view word, Xapian::termcount occurrences)
{
    const std::size_t bytes = charactersBytes(word, kPrefixTermCharacters);
    if (bytes != std::string_view::npos)
        doc.add_term(prefixTerm(word.substr(0, bytes)), occurrences);
}

bool hasPrefixTerm(std::string_view stem)
{
    return charactersBytes(stem, kPrefixTermCharacters) == stem.size();
}

Error indexError(const Xapian::Error& error, const std::string& path)
{
    return makeError(ErrorCode::Internal, "the Xapian index " + path + ": " + error.get_description());
}

Error queryError(std::string message)
{
    return makeError(ErrorCode::InvalidArgument, std::move(message));
}

// Builds the Xapian query of a parsed query against one database (the writer's or a reader's):
// prefixes expand to the terms that database holds.
struct QueryBuilder {
    const Xapian::Database& db;
    const std::vector<std::string>& fields;
    const std::vector<std::string>& prefixes;
    const XapianIndexOptions& options;
    Fts5Tokens& tokens;

    std::optional<std::size_t> columnOf(const std::string& field) const
    {
        const auto found = std::find(fields.begin(), fields.end(), field);
        if (found == fields.end())
            return std::nullopt;
        return static_cast<std::size_t>(found - fields.begin());
    }

    Result<Xapian::Query> build(const QueryNode& node, std::optional<std::size_t> column);
    Result<Xapian::Query> buildTerm(const QueryNode& node, std::optional<std::size_t> column);
    Xapian::Query wordQuery(const std::string& word, std::optional<std::size_t> column, bool positional) const;
    Xapian::Query prefixQuery(
        const std::string& stem, std::optional<std::size_t> column, std::uint32_t most, bool positional) const;
    Xapian::Query wordsQuery(
        const std::vector<std::string>& words, bool prefix, std::optional<std::size_t> column) const;
    Xapian::Query expandedPrefix(const std::string& stem, std::uint32_t most) const;
};

// The most frequent `most` terms that start with `stem`, as one OR: what a phrase's last word
// stands for when it is a prefix (Xapian's phrases take OR subqueries, not wildcards).
Xapian::Query QueryBuilder::expandedPrefix(const std::string& stem, std::uint32_t most) const
{
    std::vector<std::pair<Xapian::doccount, std::string>> found;
    for (auto term = db.allterms_begin(stem); term != db.allterms_end(stem); ++term)
        found.emplace_back(term.get_termfreq(), *term);
    if (found.size() > most) {
        std::partial_sort(found.begin(), found.begin() + most, found.end(), [](const auto& a, const auto& b) {
            return a.first > b.first || (a.first == b.first && a.second < b.second);
        });
        found.resize(most);
    }
    std::vector<Xapian::Query> terms;
    for (const auto& [frequency, term] : found)
        terms.emplace_back(term);
    return Xapian::Query(Xapian::Query::OP_OR, terms.begin(), terms.end());
}

// One word of a query in `column`, or in every field as one term when there is none (a plain OR
// inside a phrase: Xapian's phrases take no synonyms).
Xapian::Query QueryBuilder::wordQuery(const std::string& word, std::optional<std::size_t> column, bool positional) const
{
    if (column)
        return Xapian::Query(prefixes[*column] + word);
    std::vector<Xapian::Query> perField;
    for (const std::string& prefix : prefixes)
        perField.emplace_back(prefix + word);
    return Xapian::Query(
        positional ? Xapian::Query::OP_OR : Xapian::Query::OP_SYNONYM, perField.begin(), perField.end());
}

// A word that is a prefix: one term for two characters over every field, else the
// field's (or every field's) most frequent terms it names, at most `most` a field.
Xapian::Query QueryBuilder::prefixQuery(
    const std::string& stem, std::optional<std::size_t> column, std::uint32_t most, bool positional) const
{
    if (!column && !positional && hasPrefixTerm(stem))
        return Xapian::Query(prefixTerm(stem));
    std::vector<Xapian::Query> perField;
    for (std::size_t field = 0; field < prefixes.size(); ++field) {
        if (column && field != *column)
            continue;
        if (positional)
            perField.push_back(expandedPrefix(prefixes[field] + stem, most));
        else
            perField.emplace_back(
                Xapian::Query::OP_WILDCARD, prefixes[field] + stem, most, Xapian::Query::WILDCARD_LIMIT_MOST_FREQUENT);
    }
    return Xapian::Query(
        positional ? Xapian::Query::OP_OR : Xapian::Query::OP_SYNONYM, perField.begin(), perField.end());
}

// The words of one query term: a word, a prefix, or a phrase (whose last word may be a prefix).
Xapian::Query QueryBuilder::wordsQuery(
    const std::vector<std::string>& words, bool prefix, std::optional<std::size_t> column) const
{
    if (words.size() == 1)
        return prefix ? prefixQuery(words.front(), column, options.maxPrefixExpansion, false)
                      : wordQuery(words.front(), column, false);
    std::vector<Xapian::Query> parts;
    const std::uint32_t most = std::min(options.maxPrefixExpansion, kMaxPhrasePrefixExpansion);
    for (std::size_t i = 0; i < words.size(); ++i) {
        const bool last = i + 1 == words.size();
        parts.push_back(last && prefix ? prefixQuery(words[i], column, most, true) : wordQuery(words[i], column, true));
    }
    return Xapian::Query(
        Xapian::Query::OP_PHRASE, parts.begin(), parts.end(), static_cast<Xapian::termcount>(words.size()));
}

Result<Xapian::Query> QueryBuilder::buildTerm(const QueryNode& node, std::optional<std::size_t> column)
{
    auto words = tokens.tokens(node.text);
    if (!words)
        return words.error();
    if (words->empty())
        return Xapian::Query::MatchNothing;
    for (const std::string& word : *words) {
        if (word.size() > kMaxTokenBytes)
            return queryError("a word of the query is " + std::to_string(word.size()) + " bytes long; at most "
                + std::to_string(kMaxTokenBytes) + " are searched for");
    }
    return wordsQuery(*words, node.prefix, column);
}

Result<Xapian::Query> QueryBuilder::build(const QueryNode& node, std::optional<std::size_t> column)
{
    switch (node.kind) {
    case QueryNodeKind::Term: return buildTerm(node, column);
    case QueryNodeKind::Field: {
        const auto found = columnOf(node.text);
        if (!found)
            return queryError("unknown field '" + node.text + "'");
        return build(node.children.front(), found);
    }
    case QueryNodeKind::And:
    case QueryNodeKind::Or:
    case QueryNodeKind::Not: break;
    }
    std::vector<Xapian::Query> operands;
    for (const QueryNode& child : node.children) {
        auto query = build(child, column);
        if (!query)
            return query.error();
        operands.push_back(std::move(*query));
    }
    if (node.kind == QueryNodeKind::And)
        return Xapian::Query(Xapian::Query::OP_AND, operands.begin(), operands.end());
    if (node.kind == QueryNodeKind::Or)
        return Xapian::Query(Xapian::Query::OP_OR, operands.begin(), operands.end());
    const Xapian::Query excluded(Xapian::Query::OP_OR, operands.begin() + 1, operands.end());
    return Xapian::Query(Xapian::Query::OP_AND_NOT, operands.front(), excluded);
}

// The rows of `spaces` that match `query` in `db`, best first.
Result<std::vector<IndexedHit>> runSearch(QueryBuilder builder, const std::string& path,
    const std::vector<std::string>& spaces, const QueryNode& query, std::uint32_t offset, std::uint32_t limit)
{
    Result<Xapian::Query> matching = Xapian::Query();
    try {
        matching = builder.build(query, std::nullopt);
    } catch (const Xapian::DatabaseModifiedError&) {
        throw;
    } catch (const Xapian::Error& error) {
        return indexError(error, path);
    }
    if (!matching)
        return matching.error();
    std::vector<Xapian::Query> spaceTerms;
    for (const std::string& space : spaces)
        spaceTerms.emplace_back(spaceTerm(space));
    const Xapian::Query filter(Xapian::Query::OP_OR, spaceTerms.begin(), spaceTerms.end());
    std::vector<IndexedHit> hits;
    try {
        Xapian::Enquire enquire(builder.db);
        enquire.set_query(Xapian::Query(Xapian::Query::OP_FILTER, *matching, filter));
        // FTS5's bm25(): k1 = 1.2, b = 0.75.
        enquire.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.75, 0.5));
        const Xapian::MSet found = enquire.get_mset(offset, limit);
        for (auto hit = found.begin(); hit != found.end(); ++hit)
            hits.push_back({ static_cast<std::int64_t>(*hit), hit.get_weight() });
    } catch (const Xapian::DatabaseModifiedError&) {
        throw;
    } catch (const Xapian::Error& error) {
        return indexError(error, path);
    }
    return hits;
}

} // namespace

// What the writer and a reader of one index both hold: where it is, the shard's fields and
// their term prefixes, the options, and a tokenizer of their own.
struct XapianIndexCommon {
    std::string path;
    std::vector<std::string> fields;
    // Column i's term prefix: the schema fields by name, then the other fields.
    std::vector<std::string> prefixes;
    XapianIndexOptions options;
    std::unique_ptr<Fts5Tokens> tokens;

    Status setUp(const std::string& at, std::vector<std::string> schemaFields, XapianIndexOptions indexOptions)
    {
        path = at;
        fields = std::move(schemaFields);
        options = std::move(indexOptions);
        for (const std::string& field : fields)
            prefixes.push_back("X:" + field + ":");
        prefixes.push_back("O:");
        auto opened = Fts5Tokens::open(options.tokenizer);
        if (!opened)
            return opened.error();
        tokens = std::move(*opened);
        return {};
    }

    QueryBuilder builder(const Xapian::Database& db) const { return { db, fields, prefixes, options, *tokens }; }
};

struct XapianIndex::Impl : XapianIndexCommon {
    mutable std::mutex mutex;
    Xapian::WritableDatabase db;
    std::uint64_t pending = 0;
    std::uint64_t committed = 0;

    double weightOf(std::size_t column) const
    {
        return column < options.columnWeights.size() ? options.columnWeights[column] : 1.0;
    }

    bool indexes(std::size_t column) const
    {
        return column >= options.columnIndexed.size() || options.columnIndexed[column];
    }

    // A field's weight as the occurrences one token there counts for: in units of the smallest
    // weight when that is below 1 (so 0.5 and 1 stay apart), else of 1; at least 1.
    Xapian::termcount occurrencesOf(std::size_t column) const
    {
        double unit = 1.0;
        for (double weight : options.columnWeights)
            unit = weight > 0 ? std::min(unit, weight) : unit;
        return static_cast<Xapian::termcount>(std::max(1.0, std::round(weightOf(column) / unit)));
    }

    // Changes go into an unflushed transaction, so that only a commit makes them durable and a
    // close (or a crash) loses exactly what was not committed, which the shard then replays.
    void begin()
    {
        if (!inTransaction) {
            db.begin_transaction(false);
            inTransaction = true;
        }
    }
    bool inTransaction = false;
};

XapianIndex::XapianIndex(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}

XapianIndex::~XapianIndex()
{
    if (m_impl) {
        std::lock_guard lock(m_impl->mutex);
        try {
            if (m_impl->inTransaction)
                m_impl->db.cancel_transaction();
            m_impl->db.close();
        } catch (const Xapian::Error&) {
            // Closing flushes nothing the shard needs: uncommitted changes are replayed at open.
        }
    }
}

Result<std::unique_ptr<XapianIndex>> XapianIndex::open(
    const std::string& path, std::vector<std::string> fields, XapianIndexOptions options)
{
    auto impl = std::make_unique<Impl>();
    if (auto status = impl->setUp(path, std::move(fields), std::move(options)); !status)
        return status.error();
    try {
        impl->db = Xapian::WritableDatabase(path,
            Xapian::DB_CREATE_OR_OPEN | Xapian::DB_BACKEND_GLASS
                | (impl->options.syncOnCommit ? 0 : Xapian::DB_NO_SYNC));
        const std::string seq = impl->db.get_metadata(kSeqKey);
        impl->committed = seq.empty() ? 0 : std::stoull(seq);
    } catch (const Xapian::Error& error) {
        return indexError(error, path);
    } catch (const std::exception& error) {
        return makeError(ErrorCode::Internal, "the Xapian index " + path + ": bad " + kSeqKey + ": " + error.what());
    }
    return std::unique_ptr<XapianIndex>(new XapianIndex(std::move(impl)));
}

Status XapianIndex::put(const IndexedRow& row)
{
    if (row.rowid <= 0 || row.rowid > std::numeric_limits<Xapian::docid>::max())
        return makeError(ErrorCode::Internal,
            "row " + std::to_string(row.rowid) + " is beyond what a Xapian index numbers (1 to 2^32-1)");
    std::lock_guard lock(m_impl->mutex);
    Xapian::Document doc;
    doc.add_boolean_term(spaceTerm(row.space));
    // Each token under its field's prefix, at a position that counts across the row's fields with
    // a gap between two, so that no phrase runs from one field into the next; an unqualified
    // query takes a word's terms of every field as one (OP_SYNONYM), as FTS5 ranks a row by the
    // occurrences in all its fields together. A field's weight counts each occurrence that often.
    Xapian::termpos position = 0;
    std::string term;
    for (std::size_t column = 0; column < row.columns.size() && column < m_impl->prefixes.size(); ++column) {
        if (!row.columns[column] || !m_impl->indexes(column))
            continue;
        const std::string& prefix = m_impl->prefixes[column];
        const Xapian::termcount occurrences = m_impl->occurrencesOf(column);
        position += kFieldGap;
        const auto add = [&](std::string_view token, std::size_t, std::size_t) {
            ++position;
            term.assign(prefix);
            appendToken(term, token);
            doc.add_posting(term, position, occurrences);
            addPrefixTerm(doc, token, occurrences);
        };
        if (auto status = m_impl->tokens->tokenize(*row.columns[column], add); !status)
            return status;
    }
    try {
        m_impl->begin();
        m_impl->db.replace_document(static_cast<Xapian::docid>(row.rowid), doc);
    } catch (const Xapian::Error& error) {
        return indexError(error, m_impl->path);
    }
    ++m_impl->pending;
    return {};
}

Status XapianIndex::remove(std::int64_t rowid)
{
    if (rowid <= 0 || rowid > std::numeric_limits<Xapian::docid>::max())
        return {};
    std::lock_guard lock(m_impl->mutex);
    try {
        m_impl->begin();
        m_impl->db.delete_document(static_cast<Xapian::docid>(rowid));
    } catch (const Xapian::DocNotFoundError&) {
        // Already gone: a replayed change.
    } catch (const Xapian::Error& error) {
        return indexError(error, m_impl->path);
    }
    ++m_impl->pending;
    return {};
}

Status XapianIndex::commit(std::uint64_t seq)
{
    std::lock_guard lock(m_impl->mutex);
    try {
        m_impl->begin();
        m_impl->db.set_metadata(kSeqKey, std::to_string(seq));
        m_impl->db.commit_transaction();
        m_impl->inTransaction = false;
        m_impl->db.commit();
    } catch (const Xapian::Error& error) {
        // A failed commit_transaction cancels the transaction: the caller applies its changes again.
        m_impl->inTransaction = false;
        return indexError(error, m_impl->path);
    }
    m_impl->committed = seq;
    m_impl->pending = 0;
    return {};
}

Status XapianIndex::syncFiles()
{
    std::lock_guard lock(m_impl->mutex);
    std::error_code error;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(m_impl->path, error))
        if (entry.is_regular_file(error))
            files.push_back(entry.path().string());
    if (error)
        return makeError(ErrorCode::Internal, "the Xapian index " + m_impl->path + ": " + error.message());
    files.push_back(m_impl->path);
    for (const std::string& file : files) {
        const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return makeError(
                ErrorCode::Internal, "the Xapian index: cannot open " + file + ": " + std::strerror(errno));
        const int synced = ::fsync(fd);
        const int saved = errno;
        ::close(fd);
        if (synced != 0)
            return makeError(saved == ENOSPC ? ErrorCode::ResourceExhausted : ErrorCode::Internal,
                "the Xapian index: cannot sync " + file + ": " + std::strerror(saved));
    }
    return {};
}

std::uint64_t XapianIndex::committedSeq() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->committed;
}

std::uint64_t XapianIndex::pendingChanges() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->pending;
}

Result<std::vector<IndexedHit>> XapianIndex::search(
    const std::vector<std::string>& spaces, const QueryNode& query, std::uint32_t offset, std::uint32_t limit)
{
    std::lock_guard lock(m_impl->mutex);
    return runSearch(m_impl->builder(m_impl->db), m_impl->path, spaces, query, offset, limit);
}

Result<std::vector<std::int64_t>> XapianIndex::rowids() const
{
    std::lock_guard lock(m_impl->mutex);
    std::vector<std::int64_t> out;
    try {
        for (auto posting = m_impl->db.postlist_begin(""); posting != m_impl->db.postlist_end(""); ++posting)
            out.push_back(static_cast<std::int64_t>(*posting));
    } catch (const Xapian::Error& error) {
        return indexError(error, m_impl->path);
    }
    return out;
}

std::uint64_t XapianIndex::documentCount() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->db.get_doccount();
}

std::uint64_t XapianIndex::diskBytes() const
{
    std::error_code error;
    std::uint64_t total = 0;
    for (const auto& entry : std::filesystem::directory_iterator(m_impl->path, error)) {
        if (entry.is_regular_file(error))
            total += entry.file_size(error);
    }
    return total;
}

const std::string& XapianIndex::path() const
{
    return m_impl->path;
}

struct XapianSearcher::Impl : XapianIndexCommon {
    Xapian::Database db;
};

XapianSearcher::XapianSearcher(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}

XapianSearcher::~XapianSearcher() = default;

Result<std::unique_ptr<XapianSearcher>> XapianSearcher::open(
    const std::string& path, std::vector<std::string> fields, XapianIndexOptions options)
{
    auto impl = std::make_unique<Impl>();
    if (auto status = impl->setUp(path, std::move(fields), std::move(options)); !status)
        return status.error();
    try {
        impl->db = Xapian::Database(path, Xapian::DB_BACKEND_GLASS);
    } catch (const Xapian::Error& error) {
        return indexError(error, path);
    }
    return std::unique_ptr<XapianSearcher>(new XapianSearcher(std::move(impl)));
}

Result<std::vector<IndexedHit>> XapianSearcher::search(
    const std::vector<std::string>& spaces, const QueryNode& query, std::uint32_t offset, std::uint32_t limit)
{
    // A commit made while a search reads may free the blocks it reads (Xapian keeps one older
    // revision): then it starts again on the newest.
    for (int attempt = 0;; ++attempt) {
        try {
            m_impl->db.reopen();
            return runSearch(m_impl->builder(m_impl->db), m_impl->path, spaces, query, offset, limit);
        } catch (const Xapian::DatabaseModifiedError& error) {
            if (attempt == 4)
                return indexError(error, m_impl->path);
        } catch (const Xapian::Error& error) {
            return indexError(error, m_impl->path);
        }
    }
}

} // namespace shardmap::core
