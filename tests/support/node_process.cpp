#include "tests/support/node_process.h"

#include <csignal>
#include <gtest/gtest.h>

namespace shardmap::testing {

std::string nodeBinary()
{
    return SHARDMAP_NODE_BINARY;
}

std::unique_ptr<grpc::ClientContext> contextWithDeadline(std::chrono::milliseconds timeout)
{
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + timeout);
    return context;
}

std::unique_ptr<NodeProcess> NodeProcess::start(const std::string& dataDir, const std::vector<std::string>& extraArgs)
{
    auto node = std::make_unique<NodeProcess>();
    node->m_stderrFile = dataDir + ".stderr.log";
    std::vector<std::string> argv { nodeBinary(), "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--node-id",
        "test-node", "--min-free-bytes", "0" };
    argv.insert(argv.end(), extraArgs.begin(), extraArgs.end());
    auto child = ChildProcess::spawn(argv, node->m_stderrFile);
    if (!child) {
        ADD_FAILURE() << "cannot spawn " << nodeBinary();
        return nullptr;
    }
    node->m_process = std::make_unique<ChildProcess>(std::move(*child));
    const auto line = node->m_process->readLine(std::chrono::seconds(20));
    const std::string prefix = "listening on ";
    if (!line || !line->starts_with(prefix)) {
        ADD_FAILURE() << "node did not report its address; stderr:\n" << node->stderrText();
        return nullptr;
    }
    node->m_address = line->substr(prefix.size());
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(128 * 1024 * 1024);
    args.SetMaxSendMessageSize(128 * 1024 * 1024);
    node->m_channel = grpc::CreateCustomChannel(node->m_address, grpc::InsecureChannelCredentials(), args);
    node->m_stub = v1::Node::NewStub(node->m_channel);
    return node;
}

int NodeProcess::stop()
{
    m_process->signal(SIGTERM);
    const auto code = m_process->wait(std::chrono::seconds(30));
    return code.value_or(-1);
}

void NodeProcess::kill9()
{
    m_process->signal(SIGKILL);
    (void)m_process->wait(std::chrono::seconds(10));
}

} // namespace shardmap::testing
