#include "core/node/serving_health.h"

// ServingHealth: the names' states and the Check call.

namespace shardmap::core {

void ServingHealth::set(const std::string& name, bool serving)
{
    std::lock_guard lock(m_mutex);
    if (!m_shutdown)
        m_serving[name] = serving;
}

void ServingHealth::shutdown()
{
    std::lock_guard lock(m_mutex);
    m_shutdown = true;
    for (auto& [name, serving] : m_serving)
        serving = false;
}

grpc::Status ServingHealth::Check(grpc::ServerContext*, const grpc::health::v1::HealthCheckRequest* request,
    grpc::health::v1::HealthCheckResponse* response)
{
    std::lock_guard lock(m_mutex);
    const auto found = m_serving.find(request->service());
    if (found == m_serving.end())
        return grpc::Status(
            grpc::StatusCode::NOT_FOUND, "no health is kept for service \"" + request->service() + "\"");
    response->set_status(found->second ? grpc::health::v1::HealthCheckResponse::SERVING
                                       : grpc::health::v1::HealthCheckResponse::NOT_SERVING);
    return grpc::Status::OK;
}

} // namespace shardmap::core
