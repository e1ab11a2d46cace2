// openStore's implementation: a store URI to its backend (an SQLite file or an etcd cluster), with
// the rule that an etcd password never crosses the network in plaintext.

#include "core/store/etcd_store.h"
#include "core/store/metadata_store.h"
#include "core/store/sqlite_store.h"
#include "core/store/store_uri.h"
#include "core/util/address.h"

#include <algorithm>
#include <string_view>

namespace shardmap::core {

namespace {

constexpr std::string_view kSqliteScheme = "sqlite:";
constexpr std::string_view kEtcdScheme = "etcd://";

// "sqlite:PATH"; "sqlite://PATH" is accepted too, since people write URIs that way.
std::string sqlitePath(const std::string& uri)
{
    std::string path = uri.substr(kSqliteScheme.size());
    if (path.starts_with("//"))
        path.erase(0, 2);
    return path;
}

// A password crosses the network in plaintext without TLS: as a bearer token, it may go so only to
// this machine. Judged before any connection is made.
Status checkPasswordTransport(const EtcdStoreConfig& config)
{
    if (config.password.empty() || !config.caFile.empty())
        return {};
    const auto remote = std::find_if_not(config.endpoints.begin(), config.endpoints.end(), isLoopbackAddress);
    if (remote == config.endpoints.end())
        return {};
    return makeError(ErrorCode::InvalidArgument,
        "the etcd password of user '" + config.user + "' is sent to " + *remote
            + " only over TLS: add ca=FILE (the CA that signed etcd's certificate) to the store URI; without it the "
              "password would cross the network in plaintext");
}

Result<std::unique_ptr<MetadataStore>> openEtcd(const std::string& uri, bool create)
{
    auto config = EtcdStoreConfig::parse(uri);
    if (!config)
        return config.error();
    if (auto status = checkPasswordTransport(*config); !status)
        return status.error();
    auto store = EtcdStore::open(std::move(*config), create);
    if (!store)
        return store.error();
    return std::unique_ptr<MetadataStore>(std::move(*store));
}

} // namespace

std::optional<std::string> sqliteStorePath(const std::string& uri)
{
    if (!uri.starts_with(kSqliteScheme))
        return std::nullopt;
    return sqlitePath(uri);
}

Result<std::unique_ptr<MetadataStore>> openStore(const std::string& uri, bool create)
{
    if (uri.starts_with(kEtcdScheme))
        return openEtcd(uri, create);
    if (!uri.starts_with(kSqliteScheme))
        return makeError(ErrorCode::InvalidArgument,
            "unknown store URI '" + uri + "'; expected sqlite:PATH or etcd://HOST:PORT[,HOST:PORT...]/PREFIX");
    const std::string path = sqlitePath(uri);
    if (path.empty())
        return makeError(ErrorCode::InvalidArgument, "store URI '" + uri + "' has no path; expected sqlite:PATH");
    auto store = SqliteStore::open(path, create);
    if (!store)
        return store.error();
    return std::unique_ptr<MetadataStore>(std::move(*store));
}

} // namespace shardmap::core
