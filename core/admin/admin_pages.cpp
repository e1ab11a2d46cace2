#include "core/admin/admin_pages.h"

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

// Where the next page of ReadMap starts: after `key`, or at `offset` in its value when the value
// comes in slices; as of `revision`.
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
    for (const AuditRecord& record : *history) {
        for (const RecordChange& change : record.changes) {
            const bool unread = change.key > token.key || (token.offset > 0 && change.key == token.key);
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
    if (token->offset == 0)
        return snapshot.records.upper_bound(token->key);
    const auto found = snapshot.records.find(token->key);
    if (found == snapshot.records.end() || token->offset >= found->second.value.size())
        return badToken("the ReadMap");
    return found;
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
    // Each text gets an equal share of the limit; keys and revisions stay whole.
    const std::size_t share = kMaxItemBytes / (1 + 2 * static_cast<std::size_t>(entry.changes_size()));
    entry.set_reason(cutText(entry.reason(), share));
    for (v1::AuditChange& change : *entry.mutable_changes()) {
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
    std::optional<MapToken> token;
    if (!request.page_token().empty()) {
        auto parsed = parseMapToken(request.page_token());
        if (!parsed)
            return parsed.error();
        token = std::move(*parsed);
    }
    auto snapshot = request.prefix().empty() ? store.snapshot() : store.list(request.prefix());
    if (!snapshot)
        return snapshot.error();
    if (token) {
        if (auto status = restIsAsOf(store, request.prefix(), *token, snapshot->revision); !status)
            return status;
    }
    const std::uint64_t revision = token ? token->revision : snapshot->revision;
    response.set_revision(revision);
    auto it = pageStart(*snapshot, token ? &*token : nullptr);
    if (!it)
        return it.error();
    std::uint64_t offset = token ? token->offset : 0;
    const std::size_t most = pageSize(request.page_size(), 1000, 10000);
    std::size_t used = 0;
    for (auto record = *it; record != snapshot->records.end(); ++record, offset = 0) {
        const std::string& value = record->second.value;
        const std::size_t fixed = kRecordOverhead + record->first.size();
        const std::size_t left = used + fixed < kPageBudgetBytes ? kPageBudgetBytes - used - fixed : 0;
        const std::size_t rest = value.size() - offset;
        if (response.records_size() > 0 && (rest > left || static_cast<std::size_t>(response.records_size()) >= most)) {
            response.set_next_page_token(encodeToken({ revision, 0, response.records().rbegin()->key() }));
            return {};
        }
        // The page's first record: whole when it fits, else its value's next slice.
        const std::size_t room = std::max<std::size_t>(left, 64 * 1024);
        const std::size_t take = rest <= room ? rest : utf8Prefix(std::string_view(value).substr(offset), room);
        v1::StoreRecord* out = response.add_records();
        out->set_key(record->first);
        out->set_value(value.substr(offset, take));
        out->set_create_revision(record->second.createRevision);
        out->set_mod_revision(record->second.modRevision);
        if (take < value.size()) {
            out->set_value_offset(offset);
            out->set_value_size(value.size());
        }
        used += fixed + take;
        if (offset + take < value.size()) {
            response.set_next_page_token(encodeToken({ revision, offset + take, record->first }));
            return {};
        }
    }
    return {};
}

Status readHistoryPage(MetadataStore& store, const v1::ReadHistoryRequest& request, v1::ReadHistoryResponse& response)
{
    std::uint64_t from = request.from_revision();
    if (!request.page_token().empty() && !parseNumber(request.page_token(), from))
        return badToken("the ReadHistory");
    const std::size_t most = pageSize(request.limit(), 1000, 1000);
    // Read from the store a few records at a time: a page of large records holds only a few.
    constexpr std::size_t kChunk = 64;
    std::size_t used = 0;
    while (static_cast<std::size_t>(response.records_size()) < most) {
        const std::size_t wanted = std::min(kChunk, most - static_cast<std::size_t>(response.records_size()));
        auto records = store.history(from, 0, wanted);
        if (!records)
            return records.error();
        for (const AuditRecord& record : *records) {
            v1::AuditEntry entry = toEntry(record);
            cutToItemLimit(entry);
            const std::size_t size = entry.ByteSizeLong() + kRecordOverhead;
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
    const std::size_t most = pageSize(request.page_size(), 1000, 10000);
    std::size_t used = 0;
    for (const LeaseGrant& lease : *leases) {
        if (!request.page_token().empty() && lease.name <= request.page_token())
            continue;
        const std::size_t size = kRecordOverhead + lease.name.size() + lease.holder.size();
        if (response.leases_size() > 0
            && (used + size > kPageBudgetBytes || static_cast<std::size_t>(response.leases_size()) >= most)) {
            response.set_next_page_token(response.leases().rbegin()->name());
            return {};
        }
        used += size;
        v1::Lease* out = response.add_leases();
        out->set_name(lease.name);
        out->set_holder(lease.holder);
        out->set_token(lease.token);
        out->set_expires_unix_ms(lease.expiresUnixMs);
    }
    return {};
}

} // namespace shardmap::core
