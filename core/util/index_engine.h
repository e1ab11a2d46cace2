#pragma once

// The full-text index engines a shard can be made with (issue 29) and their one spelling, used by
// the node, the map, the fleet's settings, shardmapctl, the console and the metrics.

#include "core/util/result.h"

#include <iosfwd>
#include <string>
#include <string_view>

namespace shardmap::core {

// Fts5: SQLite FTS5 in the shard's own file (every shard made before issue 29).
// Xapian: a Xapian database beside the shard's file (core/shard/xapian_engine.h).
enum class IndexEngine { Fts5, Xapian };

// "fts5", "xapian".
const char* indexEngineName(IndexEngine engine);
// The engine a name stands for; InvalidArgument naming the engines there are otherwise.
Result<IndexEngine> parseIndexEngine(std::string_view name);
// Its name, so that logs and test names (GoogleTest prints parameters with it) say which.
std::ostream& operator<<(std::ostream& out, IndexEngine engine);

} // namespace shardmap::core
