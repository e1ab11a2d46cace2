#pragma once

// How shardmapctl prints for people: aligned tables, bytes, times and numbers; and the exit code
// of each error kind.

#include "core/plan/planner.h"
#include "core/util/result.h"

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardmap::app {

// A plain-text table with aligned columns, for people; scripts use --json.
class Table {
public:
    explicit Table(std::vector<std::string> headers);
    void addRow(std::vector<std::string> cells);
    void print(std::ostream& out) const;
    bool empty() const { return m_rows.empty(); }

private:
    std::vector<std::string> m_headers;
    std::vector<std::vector<std::string>> m_rows;
};

std::string formatTime(std::int64_t unixMs);
std::string fixed(double value, int decimals = 1);
// A shard's docs, bytes and query and write rates as --json gives them (plans and simulations).
nlohmann::json loadFiguresJson(const core::LoadFigures& load);

// Exit codes of shardmapctl, one per kind of failure so scripts can tell them apart.
int exitCodeFor(core::ErrorCode code);

} // namespace shardmap::app
