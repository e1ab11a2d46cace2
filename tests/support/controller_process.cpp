#include "tests/support/controller_process.h"

#include <gtest/gtest.h>

namespace shardmap::testing {

std::string controllerBinary()
{
    return SHARDMAP_CONTROLLER_BINARY;
}

std::unique_ptr<ControllerProcess> ControllerProcess::start(const std::string& stderrFile,
    const std::vector<std::string>& args, const std::vector<std::string>& env, const std::vector<std::string>& launcher)
{
    auto controller = std::make_unique<ControllerProcess>();
    controller->m_stderrFile = stderrFile;
    std::vector<std::string> argv = launcher;
    argv.insert(argv.end(), { controllerBinary(), "--listen", "127.0.0.1:0" });
    argv.insert(argv.end(), args.begin(), args.end());
    auto child = ChildProcess::spawn(argv, stderrFile, env);
    if (!child) {
        ADD_FAILURE() << "cannot spawn " << controllerBinary();
        return nullptr;
    }
    controller->m_process = std::make_unique<ChildProcess>(std::move(*child));
    const auto line = controller->m_process->readLine(std::chrono::seconds(20));
    const std::string prefix = "listening on ";
    if (!line || !line->starts_with(prefix)) {
        ADD_FAILURE() << "shardmapd did not report its address; stderr:\n" << readWholeFile(stderrFile);
        return nullptr;
    }
    controller->m_address = line->substr(prefix.size());
    controller->m_channel = grpc::CreateChannel(controller->m_address, grpc::InsecureChannelCredentials());
    controller->m_router = v1::Router::NewStub(controller->m_channel);
    controller->m_health = grpc::health::v1::Health::NewStub(controller->m_channel);
    return controller;
}

grpc::health::v1::HealthCheckResponse::ServingStatus ControllerProcess::health(const std::string& service)
{
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(service);
    grpc::health::v1::HealthCheckResponse response;
    const auto status = m_health->Check(contextWithDeadline(std::chrono::seconds(2)).get(), request, &response);
    return status.ok() ? response.status() : grpc::health::v1::HealthCheckResponse::UNKNOWN;
}

void ControllerProcess::disconnect()
{
    m_router.reset();
    m_health.reset();
    m_channel.reset();
}

} // namespace shardmap::testing
