#pragma once

// A file read again when it changes: the access policy and the bearer tokens, which shardmapd takes
// up without a restart.

#include "core/util/log.h"
#include "core/util/result.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace shardmap::core {

// How a ReloadingFile treats its file.
struct ReloadOptions {
    // Looked at no more often than this.
    std::chrono::milliseconds checkEvery = std::chrono::seconds(1);
    // A secret (the tokens file): refused when its group or others may read or write it.
    bool ownerOnly = false;
    // Whether a file that went missing, does not parse or is refused keeps the last good
    // contents (the policy: a typo must not lock everyone out) or leaves nothing current until
    // it is good again (the tokens: a token taken out must not stay valid because the edit broke).
    bool keepLastGood = true;
    // Told once of each new reason the file is not taken (Error), and when it is taken again (Info).
    LogSink log;
};

// A file read again when its contents changed (compared by their SHA-256, so an edit of the same
// size within the same second is seen), looked at no more often than options.checkEvery. A file
// that was never good is an error at load().
template <typename T> class ReloadingFile {
public:
    using Parser = std::function<Result<T>(const std::string& text, const std::string& source)>;

    static Result<std::unique_ptr<ReloadingFile>> load(
        std::filesystem::path path, Parser parser, ReloadOptions options);
    static Result<std::unique_ptr<ReloadingFile>> load(
        std::filesystem::path path, Parser parser, std::chrono::milliseconds checkEvery = std::chrono::seconds(1));

    // The contents as of the last good read (re-reads first when due); null when the newest
    // read failed and options.keepLastGood is off.
    std::shared_ptr<const T> current();
    // Why the file's newest contents were not taken; empty when they were.
    std::string lastError();
    // How many times the contents were (re)loaded, the first load included.
    std::uint64_t loads();
    const std::filesystem::path& path() const { return m_path; }

private:
    ReloadingFile(std::filesystem::path path, Parser parser, ReloadOptions options);
    Status readIfChanged();
    Result<std::string> readText() const;
    Error failed(Error error, bool contentsRead);

    const std::filesystem::path m_path;
    const Parser m_parser;
    const ReloadOptions m_options;
    std::mutex m_mutex;
    std::shared_ptr<const T> m_value;
    std::string m_error;
    std::uint64_t m_loads = 0;
    std::chrono::steady_clock::time_point m_lastCheck;
    // The SHA-256 of the contents last parsed, good or not.
    std::optional<std::array<std::uint8_t, 32>> m_parsedHash;
};

} // namespace shardmap::core
