// isLoopbackAddress's implementation: the host taken from HOST:PORT or [v6]:PORT, then matched
// against localhost, ::1 and 127.0.0.0/8.
#include "core/util/address.h"

#include <algorithm>

namespace shardmap::core {

namespace {

// "[::1]:2379" -> "::1", "127.0.0.1:2379" -> "127.0.0.1"; a bare IPv6 address (several ':') as is.
std::string_view hostOf(std::string_view address)
{
    if (address.starts_with('[')) {
        const auto close = address.find(']');
        return close == std::string_view::npos ? address.substr(1) : address.substr(1, close - 1);
    }
    if (std::count(address.begin(), address.end(), ':') == 1)
        return address.substr(0, address.find(':'));
    return address;
}

} // namespace

bool isLoopbackAddress(std::string_view address)
{
    const std::string_view host = hostOf(address);
    if (host == "localhost" || host == "::1")
        return true;
    return host.starts_with("127.") && host.find_first_not_of("0123456789.") == std::string_view::npos;
}

} // namespace shardmap::core
