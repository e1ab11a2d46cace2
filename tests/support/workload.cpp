#include "tests/support/workload.h"

#include "core/node/proto_convert.h"
#include "shardmap/v1/router.grpc.pb.h"

#include <grpcpp/grpcpp.h>
#include <random>

namespace shardmap::testing {

WritePath routerServicePath(const std::string& address)
{
    auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
    std::shared_ptr<v1::Router::Stub> stub = v1::Router::NewStub(channel);
    return [stub](const std::vector<core::Document>& docs, std::vector<core::ItemResult>& results, std::string& error) {
        v1::RouterWriteRequest request;
        for (const auto& doc : docs)
            core::toProto(doc, *request.add_docs());
        v1::RouterWriteResponse response;
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
        const auto status = stub->BulkWrite(&context, request, &response);
        if (!status.ok()) {
            error = std::to_string(status.error_code()) + ": " + status.error_message();
            return false;
        }
        results.clear();
        for (const auto& item : response.results())
            results.push_back(core::fromProto(item));
        return true;
    };
}

WritePath inProcessRouterPath(std::shared_ptr<core::Router> router)
{
    return [router](const std::vector<core::Document>& docs, std::vector<core::ItemResult>& results, std::string& error) {
        auto written = router->write(docs);
        if (!written) {
            error = written.error().describe();
            return false;
        }
        results = written->results;
        return true;
    };
}

Workload::Workload(WorkloadOptions options, std::vector<WritePath> paths)
    : m_options(std::move(options))
    , m_paths(std::move(paths))
{
}

Workload::~Workload()
{
    stop();
}

bool Workload::prefill()
{
    std::vector<core::Document> docs;
    for (const auto& space : m_options.spaces) {
        for (int i = 0; i < m_options.idsPerSpace; ++i) {
            core::Document doc;
            doc.space = space;
            doc.id = "doc-" + std::to_string(i);
            doc.version = 1;
            doc.fields = { { "title", "t " + doc.id }, { "body", "common first " + space + " " + doc.id } };
            docs.push_back(std::move(doc));
        }
    }
    for (std::size_t begin = 0; begin < docs.size(); begin += 1000) {
        const std::vector<core::Document> part(docs.begin() + static_cast<std::ptrdiff_t>(begin),
            docs.begin() + static_cast<std::ptrdiff_t>(std::min(docs.size(), begin + 1000)));
        std::vector<core::ItemResult> results;
        std::string error;
        if (!m_paths.front()(part, results, error)) {
            m_lastError = error;
            return false;
        }
        std::lock_guard lock(m_mutex);
        for (std::size_t i = 0; i < part.size() && i < results.size(); ++i) {
            m_model[part[i].space][part[i].id] = { 1, false, part[i].fields.at("body"), false };
            m_nextVersion[part[i].space + "/" + part[i].id] = 1;
        }
    }
    return true;
}

void Workload::start()
{
    m_stop = false;
    for (int writer = 0; writer < m_options.writers; ++writer)
        m_threads.emplace_back([this, writer] { writerLoop(writer); });
}

void Workload::stop()
{
    m_stop = true;
    for (auto& thread : m_threads)
        thread.join();
    m_threads.clear();
}

void Workload::writerLoop(int writer)
{
    std::mt19937 random(m_options.seed * 7919 + static_cast<std::uint32_t>(writer));
    const WritePath& path = m_paths[static_cast<std::size_t>(writer) % m_paths.size()];
    // Ids owned by this writer: every writers-th id of every space.
    std::vector<std::pair<std::string, std::string>> owned;
    for (const auto& space : m_options.spaces) {
        for (int i = writer; i < m_options.idsPerSpace; i += m_options.writers)
            owned.emplace_back(space, "doc-" + std::to_string(i));
    }
    std::uniform_int_distribution<std::size_t> pick(0, owned.size() - 1);
    std::uniform_real_distribution<double> coin(0, 1);
    while (!m_stop) {
        std::vector<core::Document> docs;
        std::map<std::string, bool> inBatch; // one write per id per call keeps the model simple
        for (int i = 0; i < m_options.batch; ++i) {
            const auto& [space, id] = owned[pick(random)];
            if (!inBatch.emplace(space + "/" + id, true).second)
                continue;
            core::Document doc;
            doc.space = space;
            doc.id = id;
            {
                std::lock_guard lock(m_mutex);
                doc.version = ++m_nextVersion[space + "/" + id];
            }
            doc.deleted = coin(random) < m_options.deleteShare;
            if (!doc.deleted)
                doc.fields = { { "title", "t " + id },
                    { "body", "common " + space + " " + id + " v" + std::to_string(doc.version) } };
            docs.push_back(std::move(doc));
        }
        std::vector<core::ItemResult> results;
        std::string error;
        const bool ok = path(docs, results, error);
        {
            std::lock_guard lock(m_mutex);
            for (std::size_t i = 0; i < docs.size(); ++i) {
                auto& entry = m_model[docs[i].space][docs[i].id];
                if (!ok) {
                    entry.uncertain = true;
                    continue;
                }
                if (i >= results.size() || results[i].outcome != core::WriteOutcome::Applied) {
                    m_anomalies.push_back(docs[i].space + "/" + docs[i].id + " v" + std::to_string(docs[i].version)
                        + (i < results.size() ? " answered " + results[i].reason : " had no result"));
                    entry.uncertain = true;
                    continue;
                }
                entry = { docs[i].version, docs[i].deleted, docs[i].deleted ? std::string() : docs[i].fields.at("body"),
                    false };
            }
            if (!ok)
                m_lastError = error;
        }
        if (ok)
            m_acknowledged += docs.size();
        else
            ++m_failedCalls;
        std::this_thread::sleep_for(m_options.pause);
    }
}

bool Workload::settle(std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        std::vector<core::Document> docs;
        {
            std::lock_guard lock(m_mutex);
            for (auto& [space, ids] : m_model) {
                for (auto& [id, entry] : ids) {
                    if (!entry.uncertain)
                        continue;
                    core::Document doc;
                    doc.space = space;
                    doc.id = id;
                    doc.version = ++m_nextVersion[space + "/" + id];
                    doc.fields = { { "title", "t " + id }, { "body", "settled " + id } };
                    docs.push_back(std::move(doc));
                }
            }
        }
        if (docs.empty())
            return true;
        std::vector<core::ItemResult> results;
        std::string error;
        if (m_paths.front()(docs, results, error)) {
            std::lock_guard lock(m_mutex);
            for (std::size_t i = 0; i < docs.size() && i < results.size(); ++i) {
                if (results[i].outcome == core::WriteOutcome::Applied)
                    m_model[docs[i].space][docs[i].id] = { docs[i].version, false, docs[i].fields.at("body"), false };
            }
        } else {
            std::lock_guard lock(m_mutex);
            m_lastError = error;
        }
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

std::vector<std::string> Workload::anomalies() const
{
    std::lock_guard lock(m_mutex);
    return m_anomalies;
}

std::map<std::string, ModelEntry> Workload::model(const std::string& space) const
{
    std::lock_guard lock(m_mutex);
    const auto found = m_model.find(space);
    return found == m_model.end() ? std::map<std::string, ModelEntry> {} : found->second;
}

std::string Workload::lastError() const
{
    std::lock_guard lock(m_mutex);
    return m_lastError;
}

std::vector<std::string> compareWithModel(core::NodeClient& node, const std::string& shard, const std::string& space,
    const std::map<std::string, ModelEntry>& model)
{
    std::vector<std::string> differences;
    std::map<std::string, core::Document> live;
    std::string after;
    for (;;) {
        auto page = node.scanPage(shard, space, after, 1000, false);
        if (!page) {
            differences.push_back("cannot scan " + space + " on " + shard + ": " + page.error().describe());
            return differences;
        }
        for (auto& doc : page->docs) {
            if (!live.emplace(doc.id, doc).second)
                differences.push_back("duplicate " + doc.id);
        }
        if (page->done)
            break;
        after = page->cursor;
    }
    for (const auto& [id, entry] : model) {
        const auto found = live.find(id);
        if (entry.uncertain) {
            differences.push_back(id + " is still uncertain in the model");
        } else if (entry.deleted) {
            if (found != live.end())
                differences.push_back(id + " was deleted at v" + std::to_string(entry.version) + " but is back at v"
                    + std::to_string(found->second.version));
        } else if (found == live.end()) {
            differences.push_back(id + " v" + std::to_string(entry.version) + " was acknowledged but is missing");
        } else if (found->second.version != entry.version) {
            differences.push_back(id + " is at v" + std::to_string(found->second.version) + ", acknowledged v"
                + std::to_string(entry.version));
        } else if (found->second.fields.at("body") != entry.body) {
            differences.push_back(id + " has another body than acknowledged");
        }
        if (found != live.end())
            live.erase(found);
    }
    for (const auto& [id, doc] : live)
        differences.push_back(id + " v" + std::to_string(doc.version) + " is on " + shard + " but was never written");
    return differences;
}

std::uint64_t rowsOf(core::NodeClient& node, const std::string& shard, const std::string& space)
{
    std::uint64_t rows = 0;
    std::string after;
    for (;;) {
        auto page = node.scanPage(shard, space, after, 1000, true);
        if (!page)
            return ~0ULL;
        rows += page->docs.size();
        if (page->done)
            return rows;
        after = page->cursor;
    }
}

} // namespace shardmap::testing
