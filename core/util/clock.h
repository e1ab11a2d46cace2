#pragma once

// The wall clock as the shard map records it: milliseconds since the Unix epoch. One definition
// for every record, log and figure that carries a time.

#include <chrono>
#include <cstdint>

namespace shardmap::core {

inline std::int64_t nowUnixMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace shardmap::core
