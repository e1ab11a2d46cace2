#pragma once

// The rules every MetadataStore backend applies the same way, so that a request is refused with
// the same code and words whichever store is behind it (the conformance suite checks both).

#include "core/store/metadata_store.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core::store_rules {

// A conflict message names the keys changed since the expected revision, found in at most this
// many recent audit records, and at most this many keys.
inline constexpr std::uint64_t kConflictScanRecords = 100;
inline constexpr std::size_t kConflictKeysNamed = 10;

std::string inQuotes(const std::string& text);
std::string joined(const std::vector<std::string>& parts, std::string_view separator);

// At least one mutation, at most maxMutations (0: no limit), non-empty UTF-8 keys and values,
// no key twice, UTF-8 actor/action/reason. InvalidArgument saying which.
Status validateCommitRequest(const CommitRequest& request, std::size_t maxMutations = 0);
Status validateLease(const std::string& name, const std::string& holder, std::chrono::milliseconds ttl);

// Why a mutation's expectModRevision does not hold for the record as stored (nullopt: it holds).
std::optional<std::string> expectationProblem(const Mutation& mutation, const std::optional<StoredRecord>& record);
// ErrorCode::Conflict listing the problems, with details "current_revision".
Error conflictError(const std::vector<std::string>& problems, std::uint64_t current);

// A conflict on the expected revision names the keys changed since, read from the audit records
// after conflictScanFrom(): at most kConflictScanRecords of them, none before the expected one.
std::uint64_t conflictScanFrom(std::uint64_t expected, std::uint64_t current);
// The keys the records changed, newest change first, each once.
std::vector<std::string> changedKeysNewestFirst(const std::vector<AuditRecord>& records);
// "expected revision 7; changed since: 'a' (mod revision 9), ..., and more" (more: keys or records
// the message leaves out).
std::string changedSinceMessage(std::uint64_t expected, std::vector<std::string> named, bool more);

// Whether an expired or released lease of this name is removed when another presence lease is
// granted (names under kReplicaLeasePrefix; see MetadataStore::acquireLease).
bool isPresenceLease(std::string_view name);

// "it is held by 'a' (token 3) for another 900 ms", "it expired ...", "it was released by ...".
std::string describeLease(const std::string& holder, std::uint64_t token, std::int64_t expiresUnixMs, std::int64_t now);

} // namespace shardmap::core::store_rules
