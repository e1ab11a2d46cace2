// ReloadingFile's implementation, instantiated for the two files shardmapd re-reads: the access
// policy and the bearer tokens.
#include "core/auth/reloading_file.h"

#include "core/auth/access_policy.h"
#include "core/auth/bearer_tokens.h"
#include "core/util/secret_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace shardmap::core {

template <typename T>
ReloadingFile<T>::ReloadingFile(std::filesystem::path path, Parser parser, ReloadOptions options)
    : m_path(std::move(path))
    , m_parser(std::move(parser))
    , m_options(std::move(options))
{
}

template <typename T>
Result<std::unique_ptr<ReloadingFile<T>>> ReloadingFile<T>::load(
    std::filesystem::path path, Parser parser, ReloadOptions options)
{
    std::unique_ptr<ReloadingFile> file(new ReloadingFile(std::move(path), std::move(parser), std::move(options)));
    std::lock_guard lock(file->m_mutex);
    if (auto status = file->readIfChanged(); !status)
        return status.error();
    return file;
}

template <typename T>
Result<std::unique_ptr<ReloadingFile<T>>> ReloadingFile<T>::load(
    std::filesystem::path path, Parser parser, std::chrono::milliseconds checkEvery)
{
    ReloadOptions options;
    options.checkEvery = checkEvery;
    return load(std::move(path), std::move(parser), std::move(options));
}

template <typename T> Result<std::string> ReloadingFile<T>::readText() const
{
    if (m_options.ownerOnly) {
        if (auto status = checkSecretFile(m_path.string(), "the file"); !status)
            return status.error();
    }
    std::ifstream in(m_path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::NotFound, m_path.string() + ": cannot open it (" + std::strerror(errno) + ")");
    std::stringstream text;
    text << in.rdbuf();
    if (in.bad())
        return makeError(ErrorCode::Unavailable, m_path.string() + ": cannot read it");
    return text.str();
}

template <typename T> Status ReloadingFile<T>::readIfChanged()
{
    m_lastCheck = std::chrono::steady_clock::now();
    auto text = readText();
    if (!text)
        return failed(text.error(), false);
    // The same bytes parse the same way: neither taken again nor reported again.
    const Sha256 hash = sha256(*text);
    if (m_parsedHash == hash)
        return m_error.empty() ? Status {} : Status(makeError(ErrorCode::InvalidArgument, m_error));
    m_parsedHash = hash;
    auto parsed = m_parser(*text, m_path.string());
    if (!parsed)
        return failed(parsed.error(), true);
    m_value = std::make_shared<const T>(std::move(*parsed));
    if (!m_error.empty() && m_options.log)
        m_options.log(LogLevel::Info, m_path.string() + " is good again and taken");
    m_error.clear();
    ++m_loads;
    return {};
}

template <typename T> Error ReloadingFile<T>::failed(Error error, bool contentsRead)
{
    // A file that could not be read is read again once it can, whatever its contents then.
    if (!contentsRead)
        m_parsedHash.reset();
    if (!m_options.keepLastGood)
        m_value.reset();
    // The first load's error is the caller's to report: it refuses to start.
    if (error.message != m_error && m_loads > 0 && m_options.log)
        m_options.log(LogLevel::Error,
            error.message
                + (m_options.keepLastGood ? "; the last good contents stay in force until it is fixed"
                                          : "; nothing of it is in force until it is fixed"));
    m_error = error.message;
    return error;
}

template <typename T> std::shared_ptr<const T> ReloadingFile<T>::current()
{
    std::lock_guard lock(m_mutex);
    if (std::chrono::steady_clock::now() - m_lastCheck >= m_options.checkEvery)
        (void)readIfChanged(); // lastError() says why the newest contents were not taken
    return m_value;
}

template <typename T> std::string ReloadingFile<T>::lastError()
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

template <typename T> std::uint64_t ReloadingFile<T>::loads()
{
    std::lock_guard lock(m_mutex);
    return m_loads;
}

template class ReloadingFile<AccessPolicy>;
template class ReloadingFile<TokenTable>;

} // namespace shardmap::core
