#include "core/store/etcd_store.h"

// EtcdStoreConfig's implementation: the etcd:// URI's endpoints, prefix and options, and the
// password it names (given, read from its file or from the environment).

#include "core/store/store_rules.h"
#include "core/util/secret_file.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace shardmap::core {

namespace {

using store_rules::joined;

constexpr std::string_view kEtcdUriScheme = "etcd://";
constexpr std::string_view kEtcdDefaultPort = ":2379";
constexpr const char* kEtcdUriUsage
    = " (expected etcd://HOST:PORT[,HOST:PORT...]/PREFIX[?user=U&password_file=F&ca=F&cert=F&key=F])";

std::vector<std::string> splitUriPart(const std::string& text, char separator)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto end = text.find(separator, start);
        parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos)
            return parts;
        start = end + 1;
    }
}

Result<std::string> percentDecoded(const std::string& text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i + 1]))
            || !std::isxdigit(static_cast<unsigned char>(text[i + 2])))
            return makeError(ErrorCode::InvalidArgument, "bad %-escape in '" + text + "'");
        out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
        i += 2;
    }
    return out;
}

Status applyOption(EtcdStoreConfig& config, const std::string& name, const std::string& value)
{
    const std::pair<const char*, std::string*> texts[] = {
        { "user", &config.user },
        { "password", &config.password },
        { "password_file", &config.passwordFile },
        { "ca", &config.caFile },
        { "cert", &config.certFile },
        { "key", &config.keyFile },
    };
    for (const auto& [option, field] : texts) {
        if (name == option) {
            *field = value;
            return {};
        }
    }
    if (name == "timeout_ms") {
        const auto ms = std::strtoll(value.c_str(), nullptr, 10);
        if (ms <= 0)
            return makeError(ErrorCode::InvalidArgument, "timeout_ms must be a positive number of milliseconds");
        config.callTimeout = std::chrono::milliseconds(ms);
        return {};
    }
    return makeError(ErrorCode::InvalidArgument,
        "unknown etcd store option '" + name + "'; known: user, password, password_file, ca, cert, key, timeout_ms");
}

Status parseEndpoints(const std::string& uri, const std::string& list, EtcdStoreConfig& config)
{
    for (auto& endpoint : splitUriPart(list, ',')) {
        if (endpoint.empty())
            return makeError(
                ErrorCode::InvalidArgument, "etcd store URI '" + uri + "' has an empty endpoint" + kEtcdUriUsage);
        if (endpoint.find(':') == std::string::npos)
            endpoint += kEtcdDefaultPort;
        config.endpoints.push_back(endpoint);
    }
    return {};
}

std::string withoutTrailingSlashes(std::string prefix)
{
    while (!prefix.empty() && prefix.back() == '/')
        prefix.pop_back();
    return prefix;
}

// The URI's query: name=value pairs joined by '&', each value %-decoded.
Status applyOptions(EtcdStoreConfig& config, const std::string& query)
{
    for (const auto& pair : splitUriPart(query, '&')) {
        const auto equals = pair.find('=');
        auto value = percentDecoded(equals == std::string::npos ? std::string() : pair.substr(equals + 1));
        if (!value)
            return value.error();
        if (auto status = applyOption(config, pair.substr(0, equals), *value); !status)
            return status;
    }
    return {};
}

// A password kept out of the URI, which process listings and shell histories show: the file's
// first line.
Result<std::string> readPasswordFile(const std::string& path)
{
    if (auto secret = checkSecretFile(path, "the etcd password file"); !secret)
        return makeError(ErrorCode::InvalidArgument, secret.error().message);
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return makeError(
            ErrorCode::InvalidArgument, "cannot read the etcd password file " + path + ": " + std::strerror(errno));
    std::string password;
    std::getline(file, password, '\n');
    if (!password.empty() && password.back() == '\r')
        password.pop_back();
    if (password.empty())
        return makeError(ErrorCode::InvalidArgument, "the etcd password file " + path + " is empty");
    return password;
}

// The password from the URI, its password file or (with a user) the environment.
Status resolvePassword(EtcdStoreConfig& config)
{
    if (!config.password.empty() && !config.passwordFile.empty())
        return makeError(ErrorCode::InvalidArgument,
            "etcd store URI '" + config.describe() + "' has both password and password_file; give one");
    if (!config.passwordFile.empty()) {
        auto password = readPasswordFile(config.passwordFile);
        if (!password)
            return password.error();
        config.password = std::move(*password);
    } else if (config.password.empty() && !config.user.empty()) {
        if (const char* password = std::getenv(kEtcdPasswordVariable); password && *password)
            config.password = password;
    }
    if (config.password.size() && config.user.empty())
        return makeError(
            ErrorCode::InvalidArgument, "etcd store URI '" + config.describe() + "' has a password but no user");
    return {};
}

} // namespace

Result<EtcdStoreConfig> EtcdStoreConfig::parse(const std::string& uri)
{
    if (!uri.starts_with(kEtcdUriScheme))
        return makeError(ErrorCode::InvalidArgument, "'" + uri + "' is not an etcd store URI" + kEtcdUriUsage);
    const std::string rest = uri.substr(kEtcdUriScheme.size());
    const auto slash = rest.find('/');
    if (slash == std::string::npos)
        return makeError(ErrorCode::InvalidArgument, "etcd store URI '" + uri + "' has no prefix" + kEtcdUriUsage);
    EtcdStoreConfig config;
    if (auto status = parseEndpoints(uri, rest.substr(0, slash), config); !status)
        return status.error();
    const auto question = rest.find('?', slash);
    config.prefix = withoutTrailingSlashes(
        rest.substr(slash + 1, question == std::string::npos ? std::string::npos : question - slash - 1));
    if (config.prefix.empty())
        return makeError(ErrorCode::InvalidArgument, "etcd store URI '" + uri + "' has no prefix" + kEtcdUriUsage);
    if (question == std::string::npos)
        return config;
    if (auto status = applyOptions(config, rest.substr(question + 1)); !status)
        return status.error();
    if (auto status = resolvePassword(config); !status)
        return status.error();
    return config;
}

std::string EtcdStoreConfig::describe() const
{
    return std::string(kEtcdUriScheme) + joined(endpoints, ",") + "/" + prefix;
}

} // namespace shardmap::core
