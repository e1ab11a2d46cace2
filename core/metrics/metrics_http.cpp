#include "core/metrics/metrics_http.h"

// MetricsHttpServer's implementation: the listen address checked, the port bound without
// SO_REUSEPORT (a second server must not share it), and GET /metrics served on a thread of its own.

#include <httplib.h>
#include <sys/socket.h>

namespace shardmap::core {

namespace {

// "host:port" or "[v6]:port".
Result<std::pair<std::string, int>> hostAndPort(const std::string& listen)
{
    const auto colon = listen.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size())
        return makeError(ErrorCode::InvalidArgument, "--metrics-listen wants HOST:PORT, not '" + listen + "'");
    std::string host = listen.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    int port = -1;
    try {
        std::size_t used = 0;
        port = std::stoi(listen.substr(colon + 1), &used);
        if (used != listen.size() - colon - 1)
            port = -1;
    } catch (const std::exception&) {
        port = -1;
    }
    if (port < 0 || port > 65535)
        return makeError(ErrorCode::InvalidArgument, "--metrics-listen: bad port in '" + listen + "'");
    return std::make_pair(host, port);
}

} // namespace

Result<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::start(
    const std::string& listen, const MetricsRegistry& registry)
{
    auto parsed = hostAndPort(listen);
    if (!parsed)
        return parsed.error();
    const auto& [host, port] = *parsed;
    std::unique_ptr<MetricsHttpServer> server(new MetricsHttpServer);
    server->m_server = std::make_unique<httplib::Server>();
    // cpp-httplib's default sets SO_REUSEPORT too, with which a second server binds a port already
    // taken and the two share the scrapes silently. Reusing an address in TIME_WAIT is enough.
    server->m_server->set_socket_options([](int socket) {
        int yes = 1;
        ::setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    server->m_server->Get("/metrics", [&registry](const httplib::Request&, httplib::Response& response) {
        response.set_content(registry.render(), "text/plain; version=0.0.4; charset=utf-8");
    });
    server->m_server->Get("/", [](const httplib::Request&, httplib::Response& response) {
        response.set_content("Shardmap metrics: GET /metrics\n", "text/plain; charset=utf-8");
    });
    int bound = port;
    if (port == 0)
        bound = server->m_server->bind_to_any_port(host);
    else if (!server->m_server->bind_to_port(host, port))
        bound = -1;
    if (bound <= 0)
        return makeError(ErrorCode::Unavailable, "cannot listen for metrics on " + listen);
    server->m_address = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(bound);
    server->m_thread = std::thread([raw = server->m_server.get()] { raw->listen_after_bind(); });
    return server;
}

MetricsHttpServer::~MetricsHttpServer()
{
    stop();
}

void MetricsHttpServer::stop()
{
    if (m_server)
        m_server->stop();
    if (m_thread.joinable())
        m_thread.join();
}

} // namespace shardmap::core
