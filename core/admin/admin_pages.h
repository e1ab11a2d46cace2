#pragma once

// The pages of the Admin API's lists (ListApprovals, ReadMap, ReadHistory, ReadLeases; issue 25):
// however much the store holds, one response stays far below gRPC's message limits. A page holds
// at most the page size and, past its first item, no more than kPageBudgetBytes; its token names
// where the next page starts. A map value larger than the budget comes in slices over several
// pages (StoreRecord.value_offset); an audit record or an approval larger than kMaxItemBytes,
// which only a store written before these limits holds, has its texts cut and says so. So has a
// map key, a lease's name or holder longer than kMaxListedNameBytes, which nothing shardmapd
// writes has but a direct write into the store can: a page that ends at one names it in its
// token by its first bytes and its SHA-256, so that the token stays small too.

#include "core/store/metadata_store.h"
#include "shardmap/v1/admin.pb.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace shardmap::core {

inline constexpr std::size_t kPageBudgetBytes = 4 * 1024 * 1024;
// Larger than any record a request within core/admin/admin_limits.h makes: an approval with the
// largest plan, the audit record of a step on it (before and after).
inline constexpr std::size_t kMaxItemBytes = 16 * 1024 * 1024;
// A map key, lease name or lease holder longer than this is listed cut (" [cut: N bytes]"); a
// map record whose key is cut comes without its value (StoreRecord.cut).
inline constexpr std::size_t kMaxListedNameBytes = 64 * 1024;
// Changes between a ReadMap's first page and a later one that are looked through to tell that
// the rest of the map is still as of the first page; more: ABORTED, read again.
inline constexpr std::size_t kMaxRevisionsWhilePaging = 10000;

// The page size a caller asked for, 0 meaning `fallback`, at most `most`.
std::size_t pageSize(std::uint32_t asked, std::size_t fallback, std::size_t most);

// text cut to at most `most` bytes on a UTF-8 character boundary, with " [cut: N bytes]".
std::string cutText(const std::string& text, std::size_t most);
// Cuts the texts of an item larger than kMaxItemBytes; leaves smaller ones alone.
void cutToItemLimit(v1::AuditEntry& entry);
void cutToItemLimit(v1::ApprovalInfo& approval);

// One page of ReadMap as of the first page's revision: ABORTED when a record not yet read changed
// since, InvalidArgument for a token that is not one this server gave.
Status readMapPage(MetadataStore& store, const v1::ReadMapRequest& request, v1::ReadMapResponse& response);
Status readHistoryPage(MetadataStore& store, const v1::ReadHistoryRequest& request, v1::ReadHistoryResponse& response);
Status readLeasesPage(MetadataStore& store, const v1::ReadLeasesRequest& request, v1::ReadLeasesResponse& response);

} // namespace shardmap::core
