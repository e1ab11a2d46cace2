#pragma once

// The demo's traffic: documents written and searches run through shardmapd's router, spread by Zipf's law.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shardmap::widgets {

// The demo's application: one background thread that writes documents through shardmapd's
// Router service at a modest rate and runs searches through it. Each document goes to one of
// `spaces` spaces picked with a Zipf distribution (space 1 the largest), so space sizes follow
// Zipf's law as real tenants do. Counts are atomics, readable from any thread.
class LoadGenerator final {
public:
    struct Options {
        std::string routerAddress;
        int spaces = 40;
        double zipfExponent = 1.0;
        int docsPerSecond = 100;
        int searchesPerSecond = 4;
        std::uint64_t seed = 7;
    };

    explicit LoadGenerator(Options options);
    ~LoadGenerator();
    LoadGenerator(const LoadGenerator&) = delete;
    LoadGenerator& operator=(const LoadGenerator&) = delete;

    void start();
    // Asks the thread to finish and joins it (at most one call's deadline). Idempotent.
    void stop();

    // Documents the router applied, searches answered, calls or items that failed.
    std::uint64_t writes() const { return m_writes.load(); }
    std::uint64_t searches() const { return m_searches.load(); }
    std::uint64_t errors() const { return m_errors.load(); }
    std::string lastError() const;

    // The name of the space of Zipf rank `rank` (1-based): "tenant-01" … "tenant-40".
    static std::string spaceName(int rank);

private:
    struct Router;

    void run();
    void writeBatch(int count);
    void searchOnce();
    int pickRank();
    void recordError(const std::string& error);

    Options m_options;
    std::unique_ptr<Router> m_router;
    std::vector<double> m_cumulative;
    std::vector<std::uint64_t> m_nextId;
    std::uint64_t m_random = 0;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopRequested = false;
    std::atomic<std::uint64_t> m_writes { 0 };
    std::atomic<std::uint64_t> m_searches { 0 };
    std::atomic<std::uint64_t> m_errors { 0 };
    mutable std::mutex m_errorMutex;
    std::string m_lastError;
};

} // namespace shardmap::widgets
