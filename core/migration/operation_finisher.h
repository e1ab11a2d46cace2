#pragma once

// Ending operations (drain, retire-node, split, merge ...) once the migrations they queued are final.

#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace shardmap::core {

// Ends operations (drain, retire-node, split, merge, isolate, move) once every migration they
// queued is final: done, retiring the shard or node they emptied, or failed, naming the
// migrations that did not finish. An operation left queuing by a writer that died between chunks
// (its record unchanged for abandonedQueuing by this process's clock) is failed too, once the
// migrations it did queue have ended: the moves never queued are not made.
//
// Used by the migration executor's scheduler while it leads: fence() gives the grant every
// commit is fenced with, and fails when the lease is lost.
class OperationFinisher {
public:
    struct Options {
        std::string actor;
        std::chrono::milliseconds abandonedQueuing { 60000 };
        std::function<Result<LeaseGrant>()> fence;
        LogSink log;
    };

    OperationFinisher(MetadataStore& store, Options options);

    // One pass over the operations; commits conflicting with another writer are left for the next.
    Status finishAll();

    // What an operation whose migrations are all final ends as, and the records to change with
    // it (the shards and node it retires); pure, for tests.
    struct Outcome {
        OperationRecord operation;
        std::vector<Mutation> retirements;
    };
    static std::optional<Outcome> outcome(const MapSnapshot& map, OperationRecord op, std::int64_t nowUnixMs);

private:
    // Running, or queuing and abandoned.
    bool needsFinishing(const OperationRecord& op, std::uint64_t modRevision);

    MetadataStore& m_store;
    Options m_options;
    std::mutex m_mutex;
    // Queuing operations: the record revision last seen and since when.
    std::map<std::string, std::pair<std::uint64_t, std::chrono::steady_clock::time_point>> m_queuingSeen;
};

} // namespace shardmap::core
