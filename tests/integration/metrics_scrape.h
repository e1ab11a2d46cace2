#pragma once

// GET /metrics of a shardmapd started with --metrics-listen, its address read from its log (the
// failover and balancer tests read their Prometheus figures with it).

#include "tests/support/controller_process.h"

#include <httplib.h>
#include <regex>
#include <string>

namespace shardmap::testing {

inline std::string scrapeControllerMetrics(const ControllerProcess& controller)
{
    std::string address;
    pollUntil(std::chrono::seconds(10), [&] {
        static const std::regex line(R"(metrics on http://([^/ ]+)/metrics)");
        std::smatch match;
        const std::string text = controller.stderrText();
        if (std::regex_search(text, match, line))
            address = match[1];
        return !address.empty();
    });
    if (address.empty())
        return {};
    const auto colon = address.rfind(':');
    httplib::Client client(address.substr(0, colon), std::stoi(address.substr(colon + 1)));
    client.set_read_timeout(10, 0);
    auto response = client.Get("/metrics");
    return response ? response->body : std::string();
}

} // namespace shardmap::testing
