#pragma once

#include "shardmap/v1/node.grpc.pb.h"
#include "tests/support/process.h"

#include <grpcpp/grpcpp.h>
#include <memory>
#include <string>
#include <vector>

namespace shardmap::testing {

// A real shardmap-node process on loopback (port 0), with a stub to talk to it.
class NodeProcess final {
public:
    // Starts the node on dataDir with extra flags; fails the calling test if it does not listen.
    static std::unique_ptr<NodeProcess> start(
        const std::string& dataDir, const std::vector<std::string>& extraArgs = {});

    const std::string& address() const { return m_address; }
    v1::Node::Stub& stub() { return *m_stub; }
    std::shared_ptr<grpc::Channel> channel() const { return m_channel; }
    ChildProcess& process() { return *m_process; }
    std::string stderrText() const { return readWholeFile(m_stderrFile); }

    // SIGTERM and wait; returns the exit code.
    int stop();
    void kill9();

private:
    std::unique_ptr<ChildProcess> m_process;
    std::string m_address;
    std::string m_stderrFile;
    std::shared_ptr<grpc::Channel> m_channel;
    std::unique_ptr<v1::Node::Stub> m_stub;
};

std::string nodeBinary();
// A client context with a deadline, as every real caller sets one.
std::unique_ptr<grpc::ClientContext> contextWithDeadline(std::chrono::milliseconds timeout = std::chrono::seconds(20));

} // namespace shardmap::testing
