// The Admin API's pages' implementation: page tokens (a revision, an offset into a sliced value, a
// position that stands for a long key by its prefix and SHA-256) and the budget each page fills.
#include "core/admin/admin_pages.h"

#include "core/util/sha256.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

namespace shardmap::core {

namespace {

// What a record adds to a response besides its texts: tags, lengths, revisions.
constexpr std::size_t kRecordOverhead = 32;

// The longest prefix of text of at most `most` bytes that ends on a UTF-8 character boundary
// (proto3 strings must be valid UTF-8, and the store holds only valid UTF-8).
std::size_t utf8Prefix(std::string_view text, std::size_t most)
{
    if (most >= text.size())
        return text.size();
    std::size_t end = most;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end;
    return end;
}

Error badToken(const std::string& what)
{
    return makeError(ErrorCode::InvalidArgument,
        what + " page_token is not one this shardmapd gave; read again from the first page (no page_token)");
}

bool parseNumber(std::string_view text, std::uint64_t& value)
{
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

// Where a page ended among names in order (map keys, lease names), as a token carries it: the
// name itself, or for a name longer than kMaxListedNameBytes its first bytes, '#' and its SHA-256
// in hex (longer than any name written whole, so the two cannot be confused).
constexpr std::size_t kHashTail = 1 + 64;

std::string positionOf(const std::string& name)
{
    if (name.size() <= kMaxListedNameBytes)
        return name;
    return name.substr(0, utf8Prefix(name, kMaxListedNameBytes)) + "#" + toHex(sha256(name));
}

struct Position {
    // The whole name, or (hash not empty) its first bytes.
    std::string prefix;
    std::string hash;
};

Position parsePosition(const std::string& text)
{
    if (text.size() <= kMaxListedNameBytes || text[text.size() - kHashTail] != '#')
        return { text, {} };
    return { text.substr(0, text.size() - kHashTail), text.substr(text.size() - kHashTail + 1) };
}

bool isCutName(const std::string& name)
{
    return name.size() > kMaxListedNameBytes;
}

// From `first`, the first name with the hashed position's prefix, the one after the name it
// names; `first` again when that name is gone (the few sharing its prefix may come again).
template <typename It, typename NameOf> It afterHashed(It first, It end, const Position& at, NameOf nameOf)
{
    for (auto it = first; it != end && nameOf(*it).starts_with(at.prefix); ++it) {
        if (isCutName(nameOf(*it)) && toHex(sha256(nameOf(*it))) == at.hash)
            return std::next(it);
    }
    return first;
}

// Where the next page of ReadMap starts: after the key `key` names (positionOf), or at `offset`
// in its value when the value comes in slices; as of `revision`.
struct MapToken {
    std::uint64_t revision = 0;
    std::uint64_t offset = 0;
    std::string key;
};

std::string encodeToken(const MapToken& token)
{
    return std::to_string(token.revision) + ":" + std::to_string(token.offset) + ":" + token.key;
}

Result<MapToken> parseMapToken(const std::string& text)
{
    const auto first = text.find(':');
    const auto second = first == std::string::npos ? std::string::npos : text.find(':', first + 1);
    MapToken token;
    if (second == std::string::npos || !parseNumber(std::string_view(text).substr(0, first), token.revision)
        || !parseNumber(std::string_view(text).substr(first + 1, second - first - 1), token.offset))
        return badToken("the ReadMap");
    token.key = text.substr(second + 1);
    return token;
}

Error mapMovedOn(const std::string& why, std::uint64_t revision)
{
    return makeError(ErrorCode::Aborted,
        why + " since this read's first page (revision " + std::to_string(revision)
            + "); read again from the first page");
}

// Whether the records a paged read has still to return are as they were at the first page's
// revision: no change since touched a key under the prefix at or after where the next page starts.
Status restIsAsOf(MetadataStore& store, const std::string& prefix, const MapToken& token, std::uint64_t now)
{
    if (now == token.revision)
        return {};
    if (now < token.revision || now - token.revision > kMaxRevisionsWhilePaging)
        return mapMovedOn("the map moved on by " + std::to_string(now - token.revision) + " revisions", token.revision);
    auto history = store.history(token.revision, now, kMaxRevisionsWhilePaging + 1);
    if (!history)
        return mapMovedOn("its history cannot be read (" + history.error().message + ")", token.revision);
    // A hashed position counts every key with its prefix as unread: the change may be to it.
    const std::string readUpTo = parsePosition(token.key).prefix;
    for (const AuditRecord& record : *history) {
        for (const RecordChange& change : record.changes) {
            const bool unread = change.key > readUpTo || (token.offset > 0 && change.key == token.key);
            if (change.key.starts_with(prefix) && unread)
                return mapMovedOn(
                    change.key + " changed at revision " + std::to_string(record.revision), token.revision);
        }
    }
    return {};
}

// The first record of a page, or one after the record the token names.
using RecordIt = std::map<std::string, StoredRecord>::const_iterator;
Result<RecordIt> pageStart(const StoreSnapshot& snapshot, const MapToken* token)
{
    if (!token)
        return snapshot.records.begin();
    const Position at = parsePosition(token->key);
    if (token->offset == 0 && at.hash.empty())
        return snapshot.records.upper_bound(at.prefix);
    if (token->offset == 0)
        return afterHashed(snapshot.records.lower_bound(at.prefix), snapshot.records.end(), at,
            [](const auto& record) -> const std::string& { return record.first; });
    // Only a value whose key is listed whole comes in slices.
    const auto found = at.hash.empty() ? snapshot.records.find(at.prefix) : snapshot.records.end();
    if (found == snapshot.records.end() || token->offset >= found->second.value.size())
        return badToken("the ReadMap");
    return found;
}

// The token a ReadMap request carries; none on the first page.
Result<std::optional<MapToken>> requestedMapToken(const v1::ReadMapRequest& request)
{
    if (request.page_token().empty())
        return std::optional<MapToken>();
    auto parsed = parseMapToken(request.page_token());
    if (!parsed)
        return parsed.error();
    return std::optional<MapToken>(std::move(*parsed));
}

// The records under prefix (all of them when it is empty), and for a later page the check that
// those still to come are as of the first page.
Result<StoreSnapshot> readMapAsOf(MetadataStore& store, const std::string& prefix, const MapToken* token)
{
    auto snapshot = prefix.empty() ? store.snapshot() : store.list(prefix);
    if (!snapshot)
        return snapshot.error();
    if (token) {
        if (auto status = restIsAsOf(store, prefix, *token, snapshot->revision); !status)
            return status.error();
    }
    return snapshot;
}

// A record whose key is too long to list: the cut key and the value's size, without the value (no
// use to a reader without its key, and a key this long could fill the response).
void addCutRecord(v1::ReadMapResponse& response, const std::string& key, const StoredRecord& record)
{
    v1::StoreRecord* out = response.add_records();
    out->set_create_revision(record.createRevision);
    out->set_mod_revision(record.modRevision);
    out->set_key(cutText(key, kMaxListedNameBytes));
    out->set_value_size(record.value.size());
    out->set_cut(true);
}

// A record's value from offset: whole when it fits in what the page has left, else its next slice
// (the page's first record takes at least 64 KiB). Returns how many bytes of the value it took.
std::size_t addRecordSlice(v1::ReadMapResponse& response, const std::string& key, const StoredRecord& record,
    std::size_t offset, std::size_t left)
{
    const std::string& value = record.value;
    const std::size_t rest = value.size() - offset;
    const std::size_t room = std::max<std::size_t>(left, 64 * 1024);
    const std::size_t take = rest <= room ? rest : utf8Prefix(std::string_view(value).substr(offset), room);
    v1::StoreRecord* out = response.add_records();
    out->set_create_revision(record.createRevision);
    out->set_mod_revision(record.modRevision);
    out->set_key(key);
    out->set_value(value.substr(offset, take));
    if (take < value.size()) {
        out->set_value_offset(offset);
        out->set_value_size(value.size());
    }
    return take;
}

// Fills a page from `first` (from `offset` in its value) up to `most` records and the page's
// budget, and names where the next one starts when records are left.
void fillMapPage(const StoreSnapshot& snapshot, RecordIt first, std::uint64_t offset, std::uint64_t revision,
    std::size_t most, v1::ReadMapResponse& response)
{
    std::size_t used = 0;
    const std::string* last = nullptr;
    for (auto record = first; record != snapshot.records.end(); ++record, offset = 0) {
        const std::string& value = record->second.value;
        const bool cut = isCutName(record->first);
        const std::size_t fixed = kRecordOverhead + (cut ? kMaxListedNameBytes + 32 : record->first.size());
        const std::size_t left = used + fixed < kPageBudgetBytes ? kPageBudgetBytes - used - fixed : 0;
        const std::size_t rest = cut ? 0 : value.size() - offset;
        if (last && (rest > left || static_cast<std::size_t>(response.records_size()) >= most)) {
            response.set_next_page_token(encodeToken({ revision, 0, positionOf(*last) }));
            return;
        }
        last = &record->first;
        if (cut) {
            addCutRecord(response, record->first, record->second);
            used += fixed;
            continue;
        }
        const std::size_t take = addRecordSlice(response, record->first, record->second, offset, left);
        used += fixed + take;
        if (offset + take < value.size()) {
            response.set_next_page_token(encodeToken({ revision, offset + take, record->first }));
            return;
        }
    }
}

v1::AuditEntry toEntry(const AuditRecord& record)
{
    v1::AuditEntry entry;
    entry.set_revision(record.revision);
    entry.set_unix_ms(record.unixMs);
    entry.set_actor(record.actor);
    entry.set_action(record.action);
    entry.set_reason(record.reason);
    for (const RecordChange& change : record.changes) {
        v1::AuditChange* changed = entry.add_changes();
        changed->set_key(change.key);
        if (change.before)
            changed->set_before(*change.before);
        if (change.after)
            changed->set_after(*change.after);
    }
    return entry;
}

// The leases (sorted by name) after the one a page token names; all of them without a token.
std::vector<LeaseGrant>::const_iterator leasesAfter(const std::vector<LeaseGrant>& leases, const std::string& token)
{
    if (token.empty())
        return leases.begin();
    const Position at = parsePosition(token);
    const auto byName = [](const LeaseGrant& lease, const std::string& name) { return lease.name < name; };
    if (!at.hash.empty())
        return afterHashed(std::lower_bound(leases.begin(), leases.end(), at.prefix, byName), leases.end(), at,
            [](const LeaseGrant& lease) -> const std::string& { return lease.name; });
    return std::upper_bound(leases.begin(), leases.end(), at.prefix,
        [](const std::string& name, const LeaseGrant& lease) { return name < lease.name; });
}

} // namespace

std::size_t pageSize(std::uint32_t asked, std::size_t fallback, std::size_t most)
{
    return asked == 0 ? fallback : std::min<std::size_t>(asked, most);
}

std::string cutText(const std::string& text, std::size_t most)
{
    if (text.size() <= most)
        return text;
    return text.substr(0, utf8Prefix(text, most)) + " [cut: " + std::to_string(text.size()) + " bytes]";
}

void cutToItemLimit(v1::AuditEntry& entry)
{
    if (entry.ByteSizeLong() <= kMaxItemBytes)
        return;
    // Each text gets an equal share of the limit; revisions stay whole, and so do keys up to
    // kMaxListedNameBytes.
    const std::size_t share = kMaxItemBytes / (1 + 2 * static_cast<std::size_t>(entry.changes_size()));
    entry.set_reason(cutText(entry.reason(), share));
    entry.set_actor(cutText(entry.actor(), kMaxListedNameBytes));
    entry.set_action(cutText(entry.action(), kMaxListedNameBytes));
    for (v1::AuditChange& change : *entry.mutable_changes()) {
        change.set_key(cutText(change.key(), kMaxListedNameBytes));
        if (change.has_before())
            change.set_before(cutText(change.before(), share));
        if (change.has_after())
            change.set_after(cutText(change.after(), share));
    }
    entry.set_cut(true);
}

void cutToItemLimit(v1::ApprovalInfo& approval)
{
    if (approval.ByteSizeLong() <= kMaxItemBytes)
        return;
    constexpr std::size_t kShare = 64 * 1024;
    for (auto* text : { approval.mutable_reason(), approval.mutable_decision_reason(), approval.mutable_summary(),
             approval.mutable_needs_approval_because(), approval.mutable_outcome() })
        *text = cutText(*text, kShare);
    if (approval.ByteSizeLong() > kMaxItemBytes) {
        const std::size_t size = approval.change().ByteSizeLong();
        approval.clear_change();
        approval.set_summary(
            approval.summary() + " [the change itself is " + std::to_string(size) + " bytes, too large to list]");
    }
}

Status readMapPage(MetadataStore& store, const v1::ReadMapRequest& request, v1::ReadMapResponse& response)
{
    auto token = requestedMapToken(request);
    if (!token)
        return token.error();
    const MapToken* from = *token ? &**token : nullptr;
    auto snapshot = readMapAsOf(store, request.prefix(), from);
    if (!snapshot)
        return snapshot.error();
    const std::uint64_t revision = from ? from->revision : snapshot->revision;
    response.set_revision(revision);
    auto it = pageStart(*snapshot, from);
    if (!it)
        return it.error();
    fillMapPage(
        *snapshot, *it, from ? from->offset : 0, revision, pageSize(request.page_size(), 1000, 10000), response);
    return {};
}

Status readHistoryPage(MetadataStore& store, const v1::ReadHistoryRequest& request, v1::ReadHistoryResponse& response)
{
    std::uint64_t from = request.from_revision();
    if (!request.page_token().empty() && !parseNumber(request.page_token(), from))
        return badToken("the ReadHistory");
    const std::size_t most = pageSize(request.limit(), 1000, 1000);
    // Read from the store a few records at a time, as many as the page's budget is likely to take
    // at the size of the records read so far: each record read is decoded, and a page of large
    // records holds only a few, so reading 64 of 10 MiB to send one would make reading a long
    // history of large records quadratic.
    constexpr std::size_t kChunk = 64;
    std::size_t chunk = 8;
    std::size_t used = 0;
    while (static_cast<std::size_t>(response.records_size()) < most) {
        const std::size_t wanted = std::min(chunk, most - static_cast<std::size_t>(response.records_size()));
        auto records = store.history(from, 0, wanted);
        if (!records)
            return records.error();
        std::size_t readBytes = 0;
        for (const AuditRecord& record : *records) {
            v1::AuditEntry entry = toEntry(record);
            cutToItemLimit(entry);
            const std::size_t size = entry.ByteSizeLong() + kRecordOverhead;
            readBytes += size;
            if (response.records_size() > 0 && used + size > kPageBudgetBytes) {
                response.set_next_page_token(std::to_string(from));
                return {};
            }
            used += size;
            from = record.revision;
            *response.add_records() = std::move(entry);
        }
        if (records->size() < wanted)
            return {};
        const std::size_t average = std::max<std::size_t>(1, readBytes / records->size());
        chunk = std::clamp<std::size_t>((kPageBudgetBytes - std::min(used, kPageBudgetBytes)) / average + 1, 1, kChunk);
    }
    response.set_next_page_token(std::to_string(from));
    return {};
}

Status readLeasesPage(MetadataStore& store, const v1::ReadLeasesRequest& request, v1::ReadLeasesResponse& response)
{
    auto leases = store.liveLeases(request.prefix());
    if (!leases)
        return leases.error();
    std::sort(leases->begin(), leases->end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    const auto start = leasesAfter(*leases, request.page_token());
    const std::size_t most = pageSize(request.page_size(), 1000, 10000);
    std::size_t used = 0;
    for (auto lease = start; lease != leases->end(); ++lease) {
        v1::Lease out;
        out.set_name(cutText(lease->name, kMaxListedNameBytes));
        out.set_holder(cutText(lease->holder, kMaxListedNameBytes));
        out.set_token(lease->token);
        out.set_expires_unix_ms(lease->expiresUnixMs);
        out.set_cut(isCutName(lease->name) || isCutName(lease->holder));
        const std::size_t size = kRecordOverhead + out.name().size() + out.holder().size();
        if (lease != start
            && (used + size > kPageBudgetBytes || static_cast<std::size_t>(response.leases_size()) >= most)) {
            response.set_next_page_token(positionOf(std::prev(lease)->name));
            return {};
        }
        used += size;
        *response.add_leases() = std::move(out);
    }
    return {};
}

} // namespace shardmap::core
