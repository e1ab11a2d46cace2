#include "tests/support/adversarial_workload.h"

#include <algorithm>
#include <future>
#include <random>
#include <set>

namespace shardmap::testing {

namespace {

std::string idOf(const char* kind, int n)
{
    return std::string(kind) + "-" + std::to_string(n);
}

std::string bigBody(std::mt19937& random, const std::string& tag)
{
    // 100–400 KB of words FTS5 has to index, starting with a tag that tells versions apart.
    static const char* kWords[] = { "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel" };
    std::uniform_int_distribution<std::size_t> size(100 * 1024, 400 * 1024);
    const std::size_t target = size(random);
    std::string body = tag;
    body.reserve(target + 16);
    while (body.size() < target) {
        body += ' ';
        body += kWords[random() % 8];
    }
    return body;
}

} // namespace

AdversarialWorkload::AdversarialWorkload(AdversarialOptions options, std::vector<WritePath> paths)
    : m_options(std::move(options))
    , m_paths(std::move(paths))
{
}

AdversarialWorkload::~AdversarialWorkload()
{
    stop();
}

core::Document AdversarialWorkload::fresh(
    const std::string& space, const std::string& id, bool deleted, std::string body)
{
    core::Document doc;
    doc.space = space;
    doc.id = id;
    doc.version = ++m_nextVersion[space + "/" + id];
    doc.deleted = deleted;
    if (!deleted)
        doc.fields = { { "title", "t " + id }, { "body", std::move(body) } };
    return doc;
}

bool AdversarialWorkload::prefill()
{
    std::vector<Sent> sent;
    std::mt19937 random(m_options.seed);
    {
        std::lock_guard lock(m_mutex);
        for (const auto& space : m_options.spaces) {
            for (int i = 0; i < m_options.idsPerSpace; ++i)
                sent.push_back({ fresh(space, idOf("doc", i), false, "common first " + space), 0 });
            for (int i = 0; i < m_options.anchorsPerSpace; ++i)
                sent.push_back({ fresh(space, idOf("anchor", i), false, "common anchor " + space), 0 });
            for (int i = 0; i < m_options.bigPerSpace; ++i)
                sent.push_back({ fresh(space, idOf("big", i), false, bigBody(random, "v1")), 0 });
        }
    }
    std::size_t begin = 0;
    while (begin < sent.size()) {
        // Keep each call well under the router's message limit.
        std::size_t end = begin;
        std::size_t bytes = 0;
        while (end < sent.size() && end - begin < 500 && bytes < 4 * 1024 * 1024)
            bytes += core::documentBytes(sent[end++].doc);
        const std::vector<Sent> part(
            sent.begin() + static_cast<std::ptrdiff_t>(begin), sent.begin() + static_cast<std::ptrdiff_t>(end));
        if (!call(m_paths.front(), part))
            return false;
        begin = end;
    }
    return true;
}

void AdversarialWorkload::start()
{
    {
        std::lock_guard lock(m_mutex);
        m_running = true;
        m_lastAck.clear();
    }
    m_stop = false;
    for (int writer = 0; writer < m_options.writers; ++writer)
        m_threads.emplace_back([this, writer] { writerLoop(writer); });
}

void AdversarialWorkload::stop()
{
    m_stop = true;
    for (auto& thread : m_threads)
        thread.join();
    m_threads.clear();
    std::lock_guard lock(m_mutex);
    m_running = false;
}

bool AdversarialWorkload::call(const WritePath& path, const std::vector<Sent>& sent)
{
    std::vector<core::Document> docs;
    for (const auto& item : sent)
        docs.push_back(item.doc);
    std::vector<core::ItemResult> results;
    std::string error;
    const bool ok = path(docs, results, error);
    record(sent, ok, results, error);
    return ok;
}

void AdversarialWorkload::record(
    const std::vector<Sent>& sent, bool ok, const std::vector<core::ItemResult>& results, const std::string& error)
{
    std::lock_guard lock(m_mutex);
    ++m_counts.calls;
    if (!ok) {
        ++m_counts.failedCalls;
        m_lastError = error;
    }
    std::set<std::string> spaces;
    for (std::size_t i = 0; i < sent.size(); ++i) {
        const auto& doc = sent[i].doc;
        auto& entry = m_model[doc.space][doc.id];
        const std::string what = doc.space + "/" + doc.id + " v" + std::to_string(doc.version);
        if (!ok) {
            entry.failed = std::max(entry.failed, doc.version);
            continue;
        }
        spaces.insert(doc.space);
        if (i >= results.size()) {
            m_anomalies.push_back(what + " had no result");
            entry.failed = std::max(entry.failed, doc.version);
            continue;
        }
        const auto& result = results[i];
        const std::string body = doc.deleted ? std::string() : doc.fields.at("body");
        switch (result.outcome) {
        case core::WriteOutcome::Applied:
            ++m_counts.itemsAcknowledged;
            if (sent[i].ackedAtSend >= doc.version) {
                m_anomalies.push_back(
                    what + " was APPLIED though v" + std::to_string(sent[i].ackedAtSend) + " was acknowledged before");
            } else if (entry.acked == doc.version && (entry.deleted != doc.deleted || entry.body != body)) {
                ++m_counts.raceBothApplied;
                m_anomalies.push_back(what + ": two different contents were both told APPLIED");
            }
            if (doc.version > entry.acked) {
                entry.acked = doc.version;
                entry.deleted = doc.deleted;
                entry.body = body;
                entry.past.emplace_back(doc.version, body);
                if (entry.past.size() > 4)
                    entry.past.erase(entry.past.begin());
            }
            break;
        case core::WriteOutcome::Stale:
            ++m_counts.itemsAcknowledged;
            if (result.storedVersion < doc.version)
                m_anomalies.push_back(
                    what + " was answered STALE while the shard holds v" + std::to_string(result.storedVersion));
            break;
        default:
            m_anomalies.push_back(what + " was REJECTED: " + result.reason);
            entry.failed = std::max(entry.failed, doc.version);
            break;
        }
    }
    for (const auto& space : spaces)
        noteAcknowledged(space);
}

void AdversarialWorkload::noteAcknowledged(const std::string& space)
{
    if (!m_running)
        return;
    const auto now = std::chrono::steady_clock::now();
    auto [last, first] = m_lastAck.try_emplace(space, now);
    if (!first) {
        m_gaps.push_back({ space, last->second, now });
        last->second = now;
    }
}

void AdversarialWorkload::writerLoop(int writer)
{
    std::mt19937 random(m_options.seed * 7919 + static_cast<std::uint32_t>(writer));
    std::uniform_real_distribution<double> coin(0, 1);
    const std::size_t paths = m_paths.size();
    const WritePath& path = m_paths[static_cast<std::size_t>(writer) % paths];
    const WritePath& otherPath = m_paths[static_cast<std::size_t>(writer + 1) % paths];
    auto pickSpace = [&] { return m_options.spaces[random() % m_options.spaces.size()]; };

    while (!m_stop) {
        const double roll = coin(random);
        if (roll < m_options.raceShare) {
            // Two clients, one id, one version, two bodies, at the same time.
            const std::string space = pickSpace();
            const std::string id = idOf("doc", static_cast<int>(random() % m_options.idsPerSpace));
            std::vector<Sent> a;
            std::vector<Sent> b;
            {
                std::lock_guard lock(m_mutex);
                auto doc = fresh(space, id, false, "race a " + space);
                const auto acked = m_model[space][id].acked;
                a.push_back({ doc, acked });
                doc.fields["body"] = "race b " + space;
                b.push_back({ doc, acked });
                ++m_counts.races;
            }
            auto other = std::async(std::launch::async, [&] { call(otherPath, b); });
            call(path, a);
            other.get();
        } else if (roll < m_options.raceShare + m_options.replayShare) {
            // An old version again, with a body it never had: must be STALE.
            const std::string space = pickSpace();
            const std::string id = idOf("doc", static_cast<int>(random() % m_options.idsPerSpace));
            std::vector<Sent> replay;
            {
                std::lock_guard lock(m_mutex);
                const auto& entry = m_model[space][id];
                if (entry.past.size() >= 2) {
                    core::Document doc;
                    doc.space = space;
                    doc.id = id;
                    doc.version = entry.past.front().first;
                    doc.fields = { { "title", "t " + id }, { "body", "replayed " + space } };
                    replay.push_back({ doc, entry.acked });
                    ++m_counts.replays;
                }
            }
            if (!replay.empty())
                call(path, replay);
        } else if (roll < m_options.raceShare + m_options.replayShare + m_options.ghostShare) {
            // A delete of an id no one wrote, or a re-delete of one.
            const std::string space = pickSpace();
            std::vector<Sent> ghost;
            {
                std::lock_guard lock(m_mutex);
                const std::string id = idOf("ghost", static_cast<int>(random() % m_options.ghostsPerSpace));
                ghost.push_back({ fresh(space, id, true, {}), m_model[space][id].acked });
                ++m_counts.ghostDeletes;
            }
            call(path, ghost);
        } else {
            std::vector<Sent> batch;
            std::set<std::string> inBatch;
            {
                std::lock_guard lock(m_mutex);
                for (int i = 0; i < m_options.batch; ++i) {
                    const std::string space = pickSpace();
                    const double kind = coin(random);
                    std::string id;
                    bool deletable = true;
                    std::string body = "common " + space + " w" + std::to_string(writer);
                    if (m_options.bigPerSpace > 0 && kind < m_options.bigShare) {
                        id = idOf("big", static_cast<int>(random() % m_options.bigPerSpace));
                        deletable = false;
                        body = bigBody(random, "w" + std::to_string(writer));
                        ++m_counts.bigWrites;
                    } else if (kind < 0.15 && m_options.anchorsPerSpace > 0) {
                        id = idOf("anchor", static_cast<int>(random() % m_options.anchorsPerSpace));
                        deletable = false;
                    } else {
                        id = idOf("doc", static_cast<int>(random() % m_options.idsPerSpace));
                    }
                    if (!inBatch.insert(space + "/" + id).second)
                        continue;
                    const bool deleted = deletable && coin(random) < m_options.deleteShare;
                    batch.push_back({ fresh(space, id, deleted, std::move(body)), m_model[space][id].acked });
                }
            }
            call(path, batch);
        }
        std::this_thread::sleep_for(m_options.pause);
    }
}

bool AdversarialWorkload::settle(std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        std::vector<Sent> sent;
        {
            std::lock_guard lock(m_mutex);
            for (auto& [space, ids] : m_model) {
                for (auto& [id, entry] : ids) {
                    if (entry.uncertain())
                        sent.push_back({ fresh(space, id, false, "settled " + space), entry.acked });
                }
            }
        }
        if (sent.empty())
            return true;
        // Large documents go a few at a time.
        for (std::size_t begin = 0; begin < sent.size(); begin += 50) {
            const std::vector<Sent> part(sent.begin() + static_cast<std::ptrdiff_t>(begin),
                sent.begin() + static_cast<std::ptrdiff_t>(std::min(sent.size(), begin + 50)));
            call(m_paths.front(), part);
        }
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

std::vector<std::string> AdversarialWorkload::anomalies() const
{
    std::lock_guard lock(m_mutex);
    return m_anomalies;
}

std::map<std::string, AdversarialEntry> AdversarialWorkload::model(const std::string& space) const
{
    std::lock_guard lock(m_mutex);
    const auto found = m_model.find(space);
    return found == m_model.end() ? std::map<std::string, AdversarialEntry> {} : found->second;
}

AdversarialCounts AdversarialWorkload::counts() const
{
    std::lock_guard lock(m_mutex);
    return m_counts;
}

std::string AdversarialWorkload::lastError() const
{
    std::lock_guard lock(m_mutex);
    return m_lastError;
}

std::vector<AdversarialWorkload::Gap> AdversarialWorkload::gaps(std::chrono::milliseconds longGap) const
{
    std::lock_guard lock(m_mutex);
    std::vector<Gap> out;
    for (const auto& gap : m_gaps) {
        if (gap.end - gap.start > longGap)
            out.push_back(gap);
    }
    return out;
}

std::vector<double> AdversarialWorkload::gapMillis() const
{
    std::lock_guard lock(m_mutex);
    std::vector<double> out;
    out.reserve(m_gaps.size());
    for (const auto& gap : m_gaps)
        out.push_back(gap.ms());
    return out;
}

std::vector<std::string> compareWithModel(core::NodeClient& node, const std::string& shard, const std::string& space,
    const std::map<std::string, AdversarialEntry>& model)
{
    std::vector<std::string> differences;
    std::map<std::string, core::Document> rows;
    std::string after;
    std::uint32_t batch = 200;
    for (;;) {
        auto page = node.scanPage(shard, space, after, batch, true);
        if (!page && page.error().code == core::ErrorCode::ResourceExhausted && batch > 1) {
            batch /= 2; // large documents
            continue;
        }
        if (!page) {
            differences.push_back("cannot scan " + space + " on " + shard + ": " + page.error().describe());
            return differences;
        }
        for (auto& doc : page->docs)
            rows.emplace(doc.id, std::move(doc));
        if (page->done)
            break;
        after = page->cursor;
    }
    for (const auto& [id, entry] : model) {
        const auto found = rows.find(id);
        const std::string what = space + "/" + id;
        if (entry.uncertain()) {
            differences.push_back(what + " is still uncertain in the model");
        } else if (entry.acked == 0) {
            if (found != rows.end() && !found->second.deleted)
                differences.push_back(what + " was never acknowledged but is there");
        } else if (found == rows.end()) {
            differences.push_back(what + " v" + std::to_string(entry.acked) + " was acknowledged"
                + (entry.deleted ? " deleted but its tombstone" : "") + " is missing");
        } else if (found->second.version != entry.acked) {
            differences.push_back(what + " is at v" + std::to_string(found->second.version) + ", acknowledged v"
                + std::to_string(entry.acked));
        } else if (found->second.deleted != entry.deleted) {
            differences.push_back(
                what + (entry.deleted ? " was deleted but is live" : " is a tombstone but was written"));
        } else if (!entry.deleted && found->second.fields.at("body") != entry.body) {
            differences.push_back(what + " v" + std::to_string(entry.acked) + " has another body than acknowledged");
        }
        if (found != rows.end())
            rows.erase(found);
    }
    for (const auto& [id, doc] : rows)
        differences.push_back(
            space + "/" + id + " v" + std::to_string(doc.version) + " is on " + shard + " but was never written");
    return differences;
}

} // namespace shardmap::testing
