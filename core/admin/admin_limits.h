#pragma once

// How large a caller's request to shardmapd's Admin API may be (docs/ACCESS.md, "Limits"). What a
// caller sends is kept: in the change's records, in approval records and in the audit, forever.
// The gRPC server takes messages up to 65 MiB because the Router's writes carry document batches
// on the same port, so each text the Admin API stores is bounded here, field by field, before
// anything is read or written. Each text must be UTF-8 too: protobuf parses and serialises string
// fields only as UTF-8, so AdminClient checks a request here before it sends it, and shardmapd
// again when it receives one.

#include "core/util/result.h"
#include "shardmap/v1/admin.pb.h"

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace shardmap::core {

// A request's or a decision's reason: a sentence or a paragraph, not a document.
inline constexpr std::size_t kMaxReasonBytes = 4096;
// A plan (ApplyPlan) of some 25,000 moves; the executor's settings; an access policy.
inline constexpr std::size_t kMaxPlanJsonBytes = 4 * 1024 * 1024;
inline constexpr std::size_t kMaxSettingsJsonBytes = 64 * 1024;
inline constexpr std::size_t kMaxPolicyJsonBytes = 1024 * 1024;
// Ids the map does not define a length for (migrations, approvals) and names like an operation's
// kind or a shard's state.
inline constexpr std::size_t kMaxNameBytes = 64;
inline constexpr std::size_t kMaxAddressBytes = 256;
inline constexpr std::size_t kMaxNodeLabels = 32;
inline constexpr std::size_t kMaxLabelKeyBytes = 64;
inline constexpr std::size_t kMaxLabelValueBytes = 256;
inline constexpr std::size_t kMaxMovesPerRequest = 10000;
// The whole ChangeRequest: the largest plan and then some.
inline constexpr std::size_t kMaxChangeRequestBytes = kMaxPlanJsonBytes + 1024 * 1024;

// One text of a request and the most bytes it may have.
struct BoundedText {
    std::string_view field;
    const std::string& value;
    std::size_t most;
};
// InvalidArgument naming the first text over its bound ("change.pin_space.space is 300 bytes;
// the Admin API takes at most 255"), each text's field after prefix.
Status checkTextBounds(std::string_view prefix, std::initializer_list<BoundedText> texts);
// InvalidArgument "<field> is <size> <unit>; the Admin API takes at most <most>".
Status overTextBound(const std::string& field, std::size_t size, std::size_t most, std::string_view unit = "bytes");

// InvalidArgument naming the first field over its limit ("reason is 31457280 bytes; at most
// 4096") or not UTF-8 ("change.queue_migration.space is not valid UTF-8; ..."), for a change
// request and for a decision (approve, refuse, remove).
Status checkChangeRequestText(const v1::ChangeRequest& request);
Status checkDecideRequestText(const v1::DecideRequest& request);
// InvalidArgument naming the first string field of any request that is not UTF-8 (the
// checks above include it).
Status checkUtf8(const google::protobuf::Message& request);

} // namespace shardmap::core
