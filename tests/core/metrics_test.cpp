#include "core/metrics/history_ring.h"
#include "core/metrics/latency_histogram.h"
#include "core/metrics/proc_stats.h"
#include "core/metrics/process_monitor.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <iostream>
#include <limits>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace shardmap::core;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t { 1024 } * 1024;

double cpuClockSeconds(clockid_t clock)
{
    timespec ts {};
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double threadCpuSeconds()
{
    return cpuClockSeconds(CLOCK_THREAD_CPUTIME_ID);
}
double processCpuSeconds()
{
    return cpuClockSeconds(CLOCK_PROCESS_CPUTIME_ID);
}

// Spins until this thread has used cpuSeconds of CPU, however long a loaded machine makes that
// take (capped so a broken clock cannot hang the suite). Counting CPU rather than wall time keeps
// the tests honest on a busy build host.
void burnCpu(double cpuSeconds)
{
    const double start = threadCpuSeconds();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    volatile std::uint64_t sink = 0;
    while (threadCpuSeconds() - start < cpuSeconds && std::chrono::steady_clock::now() < deadline) {
        for (int i = 0; i < 10000; ++i)
            sink = sink + static_cast<std::uint64_t>(i) * 2654435761u;
    }
}

// A stat line as the kernel prints it, with the given command name and utime/stime ticks.
std::string statLine(const std::string& comm, int utime, int stime)
{
    return "4154 (" + comm + ") R 4147 4147 3387 0 -1 4194304 99 0 0 0 " + std::to_string(utime) + " "
        + std::to_string(stime) + " 0 0 20 0 1 0 27205 3133440 389 18446744073709551615 0 0\n";
}

} // namespace

// --- Parsers on fixed text ------------------------------------------------------------------

TEST(MetricsParseProcStat, SumsTheEightTimeColumnsButNotGuest)
{
    const std::string text = "cpu  4562 7 4269 44293 921 3 232 11 500 600\n"
                             "cpu0 2000 3 2000 22000 400 1 100 5 250 300\n"
                             "intr 123456 0 0\n";
    const auto times = parseProcStat(text);
    ASSERT_TRUE(times.ok()) << times.error().describe();
    EXPECT_EQ(times->total, 4562u + 7 + 4269 + 44293 + 921 + 3 + 232 + 11);
    EXPECT_EQ(times->iowait, 921u);
}

TEST(MetricsParseProcStat, FindsTheAggregateLineAfterOthersAndToleratesOldKernels)
{
    // Kernels before 2.6.33 lack steal/guest; the missing columns count as 0.
    const auto times = parseProcStat("cpu0 1 2 3 4 5\ncpu  10 20 30 40 50\n");
    ASSERT_TRUE(times.ok()) << times.error().describe();
    EXPECT_EQ(times->total, 150u);
    EXPECT_EQ(times->iowait, 50u);
}

TEST(MetricsParseProcStat, RejectsMalformedText)
{
    for (const char* text : { "", "cpu0 1 2 3 4 5 6 7 8\n", "cpu  1 2 3 4\n", "cpu  1 2 x 4 5 6 7 8\n",
             "cpu  1 2 3 4 -5 6 7 8\n", "cpu  1 2 3 4 5 6 7 8abc\n" }) {
        const auto times = parseProcStat(text);
        ASSERT_FALSE(times.ok()) << "accepted: '" << text << "'";
        EXPECT_EQ(times.error().code, ErrorCode::InvalidArgument);
    }
}

TEST(MetricsParseProcSelfStat, AddsUtimeAndStimeInSeconds)
{
    const auto seconds = parseProcSelfStatCpuSeconds(statLine("shardnode", 250, 150), 100);
    ASSERT_TRUE(seconds.ok()) << seconds.error().describe();
    EXPECT_DOUBLE_EQ(*seconds, 4.0);
}

TEST(MetricsParseProcSelfStat, CommWithSpacesAndParenthesesDoesNotShiftFields)
{
    // A name crafted to look like fields: only splitting after the last ')' reads it right.
    const auto seconds = parseProcSelfStatCpuSeconds(statLine("a) R 1 2 3 4 5 6 7 8 9 (b c", 30, 20), 100);
    ASSERT_TRUE(seconds.ok()) << seconds.error().describe();
    EXPECT_DOUBLE_EQ(*seconds, 0.5);

    const auto nested = parseProcSelfStatCpuSeconds(statLine("my (odd) name)", 1000, 24), 1000);
    ASSERT_TRUE(nested.ok()) << nested.error().describe();
    EXPECT_DOUBLE_EQ(*nested, 1.024);
}

TEST(MetricsParseProcSelfStat, RejectsMalformedText)
{
    for (const std::string& text : { std::string(), std::string("4154 cat R 1 2 3 4 5 6 7 8 9 10 11 12 13"),
             std::string("4154 (cat) R 4147 4147 3387 0 -1 4194304 99 0 0 0 25"),
             std::string("4154 (cat) R 4147 4147 3387 0 -1 4194304 99 0 0 0 1x 0 0 0 20 0 1 0") }) {
        const auto seconds = parseProcSelfStatCpuSeconds(text, 100);
        ASSERT_FALSE(seconds.ok()) << "accepted: '" << text << "'";
        EXPECT_EQ(seconds.error().code, ErrorCode::InvalidArgument);
    }
    const auto noTicks = parseProcSelfStatCpuSeconds(statLine("cat", 1, 1), 0);
    ASSERT_FALSE(noTicks.ok());
    EXPECT_EQ(noTicks.error().code, ErrorCode::InvalidArgument);
}

TEST(MetricsParseProcSelfIo, ReadsStorageBytes)
{
    const auto io = parseProcSelfIo("rchar: 6976\nwchar: 12\nsyscr: 10\nsyscw: 1\nread_bytes: 40960\n"
                                    "write_bytes: 8392704\ncancelled_write_bytes: 4096\n");
    ASSERT_TRUE(io.ok()) << io.error().describe();
    EXPECT_TRUE(io->ioAvailable);
    EXPECT_EQ(io->ioReadBytes, 40960u);
    EXPECT_EQ(io->ioWriteBytes, 8392704u);
}

TEST(MetricsParseProcSelfIo, MissingCountersMeanUnavailableNotAnError)
{
    for (const char* text : { "", "rchar: 1\nwchar: 2\n", "rchar: 1\nread_bytes: 5\n" }) {
        const auto io = parseProcSelfIo(text);
        ASSERT_TRUE(io.ok()) << io.error().describe();
        EXPECT_FALSE(io->ioAvailable) << text;
        EXPECT_EQ(io->ioReadBytes, 0u);
        EXPECT_EQ(io->ioWriteBytes, 0u);
    }
}

TEST(MetricsParseProcSelfIo, RejectsMalformedText)
{
    for (const char* text : { "read_bytes 5\nwrite_bytes: 6\n", "read_bytes: five\nwrite_bytes: 6\n",
             "read_bytes: 5 6\nwrite_bytes: 6\n", "read_bytes:\nwrite_bytes: 6\n" }) {
        const auto io = parseProcSelfIo(text);
        ASSERT_FALSE(io.ok()) << "accepted: '" << text << "'";
        EXPECT_EQ(io.error().code, ErrorCode::InvalidArgument);
    }
}

// --- Live reads from this process and system -------------------------------------------------

TEST(MetricsLive, RssIsPositiveAndGrowsWhenMemoryIsTouched)
{
    const auto before = readProcessCounters();
    ASSERT_TRUE(before.ok()) << before.error().describe();
    EXPECT_GT(before->rssBytes, 0u);

    // Filling the buffer writes every page, so all 64 MiB become resident.
    std::vector<unsigned char> buffer(64 * kMiB, 0x5a);
    const auto after = readProcessCounters();
    ASSERT_TRUE(after.ok()) << after.error().describe();
    EXPECT_GE(after->rssBytes, before->rssBytes + 48 * kMiB);
    EXPECT_EQ(buffer[buffer.size() / 2], 0x5a); // keeps the buffer alive until after the read
}

TEST(MetricsLive, CpuSecondsGrowWithABusyLoop)
{
    const auto before = readProcessCounters();
    ASSERT_TRUE(before.ok()) << before.error().describe();
    burnCpu(0.2);
    const auto after = readProcessCounters();
    ASSERT_TRUE(after.ok()) << after.error().describe();
    // /proc counts in clock ticks (usually 10 ms), so allow some rounding below 0.2 s.
    EXPECT_GE(after->cpuSeconds - before->cpuSeconds, 0.15);
    EXPECT_LT(after->cpuSeconds - before->cpuSeconds, 5.0);
}

TEST(MetricsLive, WriteBytesGrowAfterWritingAndSyncingAFile)
{
    const auto before = readProcessCounters();
    ASSERT_TRUE(before.ok()) << before.error().describe();
    if (!before->ioAvailable)
        GTEST_SKIP() << "/proc/self/io has no read_bytes/write_bytes here (no task IO accounting)";

    std::string path = (std::filesystem::temp_directory_path() / "shardmap_metrics_XXXXXX").string();
    const int fd = mkstemp(path.data());
    ASSERT_GE(fd, 0) << "mkstemp " << path;
    const std::vector<char> block(kMiB, 'x');
    bool written = true;
    for (int i = 0; i < 8 && written; ++i)
        written = write(fd, block.data(), block.size()) == static_cast<ssize_t>(block.size());
    const bool synced = fsync(fd) == 0;
    close(fd);
    std::filesystem::remove(path);
    ASSERT_TRUE(written && synced) << "writing " << path;

    const auto after = readProcessCounters();
    ASSERT_TRUE(after.ok()) << after.error().describe();
    ASSERT_TRUE(after->ioAvailable);
    const std::uint64_t grown = after->ioWriteBytes - before->ioWriteBytes;
    if (grown == 0)
        GTEST_SKIP() << "the kernel did not account the 8 MiB written to " << path
                     << " in write_bytes (tmpfs, or a sandbox without block IO accounting)";
    EXPECT_GE(grown, 8 * kMiB);
}

TEST(MetricsLive, SystemCpuTimesAreSane)
{
    const auto first = readSystemCpuTimes();
    ASSERT_TRUE(first.ok()) << first.error().describe();
    EXPECT_GT(first->total, 0u);
    EXPECT_LE(first->iowait, first->total);
    burnCpu(0.05);
    const auto second = readSystemCpuTimes();
    ASSERT_TRUE(second.ok()) << second.error().describe();
    EXPECT_GE(second->total, first->total);
}

TEST(MetricsLive, DiskSpaceOfRoot)
{
    const auto space = readDiskSpace("/");
    ASSERT_TRUE(space.ok()) << space.error().describe();
    EXPECT_GT(space->totalBytes, 0u);
    EXPECT_LE(space->freeBytes, space->totalBytes);
}

TEST(MetricsLive, DiskSpaceOfMissingPathIsNotFound)
{
    const std::string path = "/nonexistent/shardmap/metrics/test/path";
    const auto space = readDiskSpace(path);
    ASSERT_FALSE(space.ok());
    EXPECT_EQ(space.error().code, ErrorCode::NotFound);
    EXPECT_NE(space.error().describe().find(path), std::string::npos) << space.error().describe();
}

TEST(MetricsProcessMonitor, FirstSampleHasRssButNoRates)
{
    ProcessMonitor monitor;
    const ProcessRates rates = monitor.sample();
    EXPECT_GT(rates.rssBytes, 0u);
    EXPECT_EQ(rates.cpuPercent, 0);
    EXPECT_EQ(rates.ioReadBytesPerSecond, 0);
    EXPECT_EQ(rates.ioWriteBytesPerSecond, 0);
    EXPECT_EQ(rates.iowaitPercent, 0);
}

TEST(MetricsProcessMonitor, BusyIntervalShowsCpu)
{
    ProcessMonitor monitor;
    const double cpuBefore = processCpuSeconds();
    const auto wallBefore = std::chrono::steady_clock::now();
    (void)monitor.sample();
    burnCpu(0.3);
    const ProcessRates rates = monitor.sample();
    const double wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallBefore).count();
    const double expectedPercent = (processCpuSeconds() - cpuBefore) / wallSeconds * 100;

    EXPECT_GT(rates.rssBytes, 0u);
    // The kernel's own clock for this process is the reference. /proc counts whole ticks, so
    // allow a few ticks of rounding over the interval.
    const double tickPercent = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK)) / wallSeconds * 100;
    EXPECT_NEAR(rates.cpuPercent, expectedPercent, 4 * tickPercent + 5);
    // The absolute threshold only holds if the host let the busy thread run; on a saturated
    // machine the comparison above is what still checks the value.
    if (expectedPercent >= 30)
        EXPECT_GT(rates.cpuPercent, 20);
    else
        std::cout << "[ INFO     ] host is saturated: the busy thread got " << expectedPercent
                  << " % of a core; cpuPercent = " << rates.cpuPercent << "\n";
    EXPECT_LT(rates.cpuPercent, 150); // one busy thread is well under two cores
    EXPECT_GE(rates.iowaitPercent, 0);
    EXPECT_LE(rates.iowaitPercent, 100);
    EXPECT_GE(rates.ioReadBytesPerSecond, 0);
    EXPECT_GE(rates.ioWriteBytesPerSecond, 0);
}

TEST(MetricsProcessMonitor, IdleIntervalShowsLittleCpu)
{
    ProcessMonitor monitor;
    (void)monitor.sample();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_LT(monitor.sample().cpuPercent, 20);
}

TEST(MetricsProcessMonitor, ConcurrentSamplesAreSafe)
{
    ProcessMonitor monitor;
    std::vector<std::thread> threads;
    threads.reserve(4);
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&monitor] {
            for (int i = 0; i < 50; ++i) {
                const ProcessRates rates = monitor.sample();
                EXPECT_GT(rates.rssBytes, 0u);
                EXPECT_GE(rates.cpuPercent, 0);
            }
        });
    }
    for (auto& thread : threads)
        thread.join();
}

// --- LatencyHistogram ------------------------------------------------------------------------

TEST(MetricsLatencyHistogram, BucketBoundsAreLogSpaced)
{
    EXPECT_DOUBLE_EQ(LatencyHistogram::bucketUpperMs(0), 0.001);
    for (int i = 1; i < LatencyHistogram::kBuckets; ++i)
        EXPECT_NEAR(LatencyHistogram::bucketUpperMs(i) / LatencyHistogram::bucketUpperMs(i - 1), 1.1, 1e-9);
    EXPECT_GT(LatencyHistogram::bucketUpperMs(LatencyHistogram::kBuckets - 1), 100'000.0); // over 100 s
}

TEST(MetricsLatencyHistogram, ValuesLandInTheBucketWhoseRangeHoldsThem)
{
    for (const double ms : { 0.0015, 0.01, 0.5, 1.0, 7.3, 500.0, 12345.0 }) {
        const int bucket = LatencyHistogram::bucketFor(ms);
        ASSERT_GT(bucket, 0);
        EXPECT_LE(ms, LatencyHistogram::bucketUpperMs(bucket)) << ms;
        EXPECT_GT(ms, LatencyHistogram::bucketUpperMs(bucket - 1)) << ms;
    }
    // Exactly on a bound belongs to the bucket it bounds.
    EXPECT_EQ(LatencyHistogram::bucketFor(LatencyHistogram::bucketUpperMs(37)), 37);
}

TEST(MetricsLatencyHistogram, OutOfRangeValuesAreClamped)
{
    EXPECT_EQ(LatencyHistogram::bucketFor(0.0), 0);
    EXPECT_EQ(LatencyHistogram::bucketFor(-5.0), 0);
    EXPECT_EQ(LatencyHistogram::bucketFor(0.0001), 0);
    EXPECT_EQ(LatencyHistogram::bucketFor(0.001), 0);
    EXPECT_EQ(LatencyHistogram::bucketFor(1e12), LatencyHistogram::kBuckets - 1);
    EXPECT_EQ(LatencyHistogram::bucketFor(std::numeric_limits<double>::infinity()), LatencyHistogram::kBuckets - 1);
    EXPECT_EQ(LatencyHistogram::bucketFor(std::numeric_limits<double>::quiet_NaN()), 0);
}

TEST(MetricsLatencyHistogram, EmptyGivesZeros)
{
    LatencyHistogram histogram;
    const LatencySummary summary = histogram.takeAndReset();
    EXPECT_EQ(summary.count, 0u);
    EXPECT_EQ(summary.p50Ms, 0);
    EXPECT_EQ(summary.p99Ms, 0);
    EXPECT_EQ(histogram.peek().count, 0u);
}

TEST(MetricsLatencyHistogram, UniformOneToThousandMs)
{
    LatencyHistogram histogram;
    for (int ms = 1; ms <= 1000; ++ms)
        histogram.record(ms);
    const LatencySummary summary = histogram.takeAndReset();
    EXPECT_EQ(summary.count, 1000u);
    EXPECT_NEAR(summary.p50Ms, 500, 50);
    EXPECT_NEAR(summary.p99Ms, 990, 99);
    // A percentile is the upper bound of its bucket, so it never understates.
    EXPECT_GE(summary.p50Ms, 500);
    EXPECT_GE(summary.p99Ms, 990);
}

TEST(MetricsLatencyHistogram, ConstantAndSkewedDistributions)
{
    LatencyHistogram constant;
    for (int i = 0; i < 100; ++i)
        constant.record(3.0);
    const LatencySummary same = constant.peek();
    EXPECT_EQ(same.count, 100u);
    EXPECT_EQ(same.p50Ms, LatencyHistogram::bucketUpperMs(LatencyHistogram::bucketFor(3.0)));
    EXPECT_EQ(same.p99Ms, same.p50Ms);

    // 98 fast, 2 slow: p99 (rank 99) is a slow one, p50 a fast one.
    LatencyHistogram skewed;
    for (int i = 0; i < 98; ++i)
        skewed.record(1.0);
    skewed.record(2000.0);
    skewed.record(2000.0);
    const LatencySummary tail = skewed.peek();
    EXPECT_NEAR(tail.p50Ms, 1.0, 0.1);
    EXPECT_NEAR(tail.p99Ms, 2000.0, 200.0);

    // 99 fast, 1 slow: rank 99 is still fast.
    LatencyHistogram oneSlow;
    for (int i = 0; i < 99; ++i)
        oneSlow.record(1.0);
    oneSlow.record(2000.0);
    EXPECT_NEAR(oneSlow.peek().p99Ms, 1.0, 0.1);
}

TEST(MetricsLatencyHistogram, TakeAndResetStartsAFreshInterval)
{
    LatencyHistogram histogram;
    for (int i = 0; i < 10; ++i)
        histogram.record(100.0);

    // peek() does not consume.
    EXPECT_EQ(histogram.peek().count, 10u);
    EXPECT_EQ(histogram.peek().count, 10u);

    const LatencySummary first = histogram.takeAndReset();
    EXPECT_EQ(first.count, 10u);
    EXPECT_NEAR(first.p50Ms, 100.0, 10.0);

    EXPECT_EQ(histogram.peek().count, 0u);
    EXPECT_EQ(histogram.takeAndReset().count, 0u);

    histogram.record(2.0);
    const LatencySummary second = histogram.takeAndReset();
    EXPECT_EQ(second.count, 1u);
    EXPECT_NEAR(second.p50Ms, 2.0, 0.2);
    EXPECT_NEAR(second.p99Ms, 2.0, 0.2);
}

TEST(MetricsLatencyHistogram, ConcurrentRecordsAreCountedExactly)
{
    constexpr int kThreads = 4;
    constexpr int kPerThread = 100'000;
    LatencyHistogram histogram;
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&histogram, t] {
            for (int i = 0; i < kPerThread; ++i)
                histogram.record(0.01 * (t + 1) + 0.001 * (i % 1000));
        });
    }
    for (auto& thread : threads)
        thread.join();
    EXPECT_EQ(histogram.takeAndReset().count, static_cast<std::uint64_t>(kThreads) * kPerThread);
}

TEST(MetricsLatencyHistogram, TakeAndResetRacingRecordsLosesNothing)
{
    constexpr int kThreads = 4;
    constexpr int kPerThread = 50'000;
    LatencyHistogram histogram;
    std::atomic<bool> done { false };
    std::uint64_t taken = 0;
    std::thread reader([&] {
        while (!done.load())
            taken += histogram.takeAndReset().count;
    });
    std::vector<std::thread> writers;
    writers.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
        writers.emplace_back([&histogram] {
            for (int i = 0; i < kPerThread; ++i)
                histogram.record(5.0);
        });
    }
    for (auto& writer : writers)
        writer.join();
    done = true;
    reader.join();
    taken += histogram.takeAndReset().count;
    EXPECT_EQ(taken, static_cast<std::uint64_t>(kThreads) * kPerThread);
}

// --- HistoryRing ---------------------------------------------------------------------------

TEST(MetricsHistoryRing, KeepsInsertionOrder)
{
    HistoryRing<int> ring(5);
    EXPECT_EQ(ring.size(), 0u);
    EXPECT_TRUE(ring.snapshot().empty());
    for (int i = 1; i <= 3; ++i)
        ring.push(i);
    EXPECT_EQ(ring.size(), 3u);
    EXPECT_EQ(ring.snapshot(), (std::vector<int> { 1, 2, 3 }));
}

TEST(MetricsHistoryRing, DropsOldestWhenFull)
{
    HistoryRing<int> ring(3);
    for (int i = 1; i <= 7; ++i)
        ring.push(i);
    EXPECT_EQ(ring.size(), 3u);
    EXPECT_EQ(ring.capacity(), 3u);
    EXPECT_EQ(ring.snapshot(), (std::vector<int> { 5, 6, 7 }));
    ring.push(8);
    EXPECT_EQ(ring.snapshot(), (std::vector<int> { 6, 7, 8 }));
}

TEST(MetricsHistoryRing, ZeroCapacityHoldsOne)
{
    HistoryRing<int> ring(0);
    EXPECT_EQ(ring.capacity(), 1u);
    ring.push(1);
    ring.push(2);
    EXPECT_EQ(ring.snapshot(), (std::vector<int> { 2 }));
}

TEST(MetricsHistoryRing, FilteredSnapshotKeepsOrder)
{
    HistoryRing<int> ring(4);
    for (int i = 1; i <= 6; ++i)
        ring.push(i);
    EXPECT_EQ(ring.snapshot([](const int& v) { return v % 2 == 0; }), (std::vector<int> { 4, 6 }));
    EXPECT_EQ(ring.snapshot([](const int& v) { return v > 100; }), std::vector<int> {});
}

// Issue 27: the anonymous pages alone (900 here) were reported, a seventh of VmRSS for a node.
TEST(MetricsStatmTest, ReportsAllResidentPagesSharedOnesIncluded)
{
    auto pages = shardmap::core::parseStatmResidentPages("5000 1200 300 10 0 900 0\n");
    ASSERT_TRUE(pages);
    EXPECT_EQ(*pages, 1200u);
    EXPECT_FALSE(shardmap::core::parseStatmResidentPages("5000"));
    auto noShared = shardmap::core::parseStatmResidentPages("5000 1200");
    ASSERT_TRUE(noShared);
    EXPECT_EQ(*noShared, 1200u);
}
