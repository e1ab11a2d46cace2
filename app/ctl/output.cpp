// output's implementation: aligned table columns, byte, time and number texts, and the exit code
// of each error kind.
#include "app/ctl/output.h"

#include <algorithm>
#include <ctime>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace shardmap::app {

Table::Table(std::vector<std::string> headers)
    : m_headers(std::move(headers))
{
}

void Table::addRow(std::vector<std::string> cells)
{
    cells.resize(m_headers.size());
    m_rows.push_back(std::move(cells));
}

void Table::print(std::ostream& out) const
{
    std::vector<std::size_t> widths;
    for (const auto& header : m_headers)
        widths.push_back(header.size());
    for (const auto& row : m_rows) {
        for (std::size_t i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], row[i].size());
    }
    auto printRow = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            out << row[i];
            if (i + 1 < row.size())
                out << std::string(widths[i] - row[i].size() + 2, ' ');
        }
        out << '\n';
    };
    printRow(m_headers);
    for (const auto& row : m_rows)
        printRow(row);
}

std::string formatTime(std::int64_t unixMs)
{
    const std::time_t seconds = static_cast<std::time_t>(unixMs / 1000);
    std::tm utc {};
    gmtime_r(&seconds, &utc);
    std::ostringstream out;
    out << std::put_time(&utc, "%Y-%m-%d %H:%M:%S") << "Z";
    return out.str();
}

std::string fixed(double value, int decimals)
{
    std::ostringstream out;
    out << std::fixed << std::setprecision(decimals) << value;
    return out.str();
}

int exitCodeFor(core::ErrorCode code)
{
    switch (code) {
    case core::ErrorCode::InvalidArgument: return 2;
    case core::ErrorCode::NotFound: return 3;
    case core::ErrorCode::Conflict:
    case core::ErrorCode::AlreadyExists: return 4;
    case core::ErrorCode::FailedPrecondition: return 5;
    case core::ErrorCode::Unavailable:
    case core::ErrorCode::DeadlineExceeded: return 6;
    case core::ErrorCode::PermissionDenied:
    case core::ErrorCode::Unauthenticated: return 7;
    default: return 1;
    }
}

nlohmann::json loadFiguresJson(const core::LoadFigures& load)
{
    return { { "docs", load.docs }, { "bytes", load.bytes }, { "queries_per_second", load.queriesPerSecond },
        { "writes_per_second", load.writesPerSecond } };
}

} // namespace shardmap::app
