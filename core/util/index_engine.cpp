// The names of the index engines.

#include "core/util/index_engine.h"

#include <ostream>

namespace shardmap::core {

const char* indexEngineName(IndexEngine engine)
{
    switch (engine) {
    case IndexEngine::Fts5: return "fts5";
    case IndexEngine::Xapian: return "xapian";
    }
    return "fts5";
}

Result<IndexEngine> parseIndexEngine(std::string_view name)
{
    for (const IndexEngine engine : { IndexEngine::Fts5, IndexEngine::Xapian }) {
        if (name == indexEngineName(engine))
            return engine;
    }
    return makeError(
        ErrorCode::InvalidArgument, "unknown index engine '" + std::string(name) + "' (the engines are fts5, xapian)");
}

std::ostream& operator<<(std::ostream& out, IndexEngine engine)
{
    return out << indexEngineName(engine);
}

} // namespace shardmap::core
