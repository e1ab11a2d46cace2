#include "core/node/unparsed_request_interceptor.h"

// The interceptor's implementation: it rewrites only the INTERNAL gRPC gives a request it could not
// parse, before any service ran.

#include <string>

namespace shardmap::core {

namespace {

using grpc::experimental::InterceptionHookPoints;

class UnparsedRequestInterceptor final : public grpc::experimental::Interceptor {
public:
    explicit UnparsedRequestInterceptor(const char* method)
        : m_method(method ? method : "")
    {
    }

    void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override
    {
        // gRPC hands the interceptors no message when it could not parse the request.
        if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE))
            m_unparsed = methods->GetRecvMessage() == nullptr;
        if (m_unparsed && methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)
            && methods->GetSendStatus().error_code() == grpc::StatusCode::INTERNAL)
            methods->ModifySendStatus(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                "the request to " + m_method
                    + " is not a message of its type: damaged, or a string field is not valid UTF-8"));
        methods->Proceed();
    }

private:
    std::string m_method;
    bool m_unparsed = false;
};

class Factory final : public grpc::experimental::ServerInterceptorFactoryInterface {
public:
    grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override
    {
        return new UnparsedRequestInterceptor(info->method());
    }
};

} // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> unparsedRequestInterceptorFactory()
{
    return std::make_unique<Factory>();
}

} // namespace shardmap::core
