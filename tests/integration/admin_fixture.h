#pragma once

// shardmapd's Admin API for a test (issue 17): real nodes, a real shardmapd with mutual TLS, and
// the real shardmapctl as a person holding a client certificate the test CA signed.

#include "core/client/admin_client.h"
#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "ctl_run.h"
#include "tests/support/certificates.h"
#include "tests/support/controller_process.h"

#include <chrono>
#include <cstdlib>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace shardmap::testing {

// A client certificate with CN name, signed by the test CA in dir (NAME.pem, NAME.key).
inline bool makeClientCertificate(const std::string& dir, const std::string& name)
{
    const std::string script = "cd '" + dir
        + "' && openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + name + ".key -out "
        + name + ".csr -subj /CN=" + name + " 2>/dev/null && openssl x509 -req -in " + name
        + ".csr -CA ca.pem -CAkey ca.key -CAcreateserial -out " + name + ".pem -days 2 2>/dev/null";
    return std::system(script.c_str()) == 0;
}

class AdminFixture : public ::testing::Test {
protected:
    std::string storeUri() const { return "sqlite:" + m_dir.file("map.db"); }

    // shardmapctl through the Admin API as `who` (its certificate), claiming to be mallory.
    CtlRun as(const std::string& who, std::vector<std::string> args, const std::string& address = {})
    {
        std::vector<std::string> argv { SHARDMAP_CTL_BINARY, "--controller",
            address.empty() ? m_controller->address() : address, "--controller-ca", m_dir.file("ca.pem"),
            "--controller-cert", m_dir.file(who + ".pem"), "--controller-key", m_dir.file(who + ".key"), "--actor",
            "mallory" };
        argv.insert(argv.end(), args.begin(), args.end());
        return runProgram(m_dir, argv, {}, "ctl-" + who);
    }

    // The Admin API as `who` (its certificate), in this process.
    std::unique_ptr<core::AdminClient> adminClient(const std::string& who, std::chrono::seconds timeout)
    {
        core::AdminClientOptions options;
        options.address = m_controller->address();
        options.caFile = m_dir.file("ca.pem");
        options.certFile = m_dir.file(who + ".pem");
        options.keyFile = m_dir.file(who + ".key");
        options.timeout = timeout;
        auto connected = core::AdminClient::connect(options);
        EXPECT_TRUE(connected) << connected.error().describe();
        return connected ? std::move(*connected) : nullptr;
    }

    core::MapSnapshot map()
    {
        auto store = core::openStore(storeUri(), false);
        EXPECT_TRUE(store);
        auto snapshot = (*store)->snapshot();
        EXPECT_TRUE(snapshot);
        auto decoded = core::MapSnapshot::decode(*snapshot);
        EXPECT_TRUE(decoded);
        return *decoded;
    }

    // Every audit record, oldest first.
    std::vector<core::AuditRecord> audit()
    {
        auto store = core::openStore(storeUri(), false);
        EXPECT_TRUE(store);
        auto history = (*store)->history(0, 0, 0);
        EXPECT_TRUE(history);
        return history ? *history : std::vector<core::AuditRecord> {};
    }

    // The audit records of changes people made (not the executor's progress), oldest first.
    std::vector<core::AuditRecord> peopleAudit()
    {
        std::vector<core::AuditRecord> records;
        for (core::AuditRecord& record : audit()) {
            if (!record.actor.starts_with("shardmapd/"))
                records.push_back(std::move(record));
        }
        return records;
    }

    // The newest audit record of a change an administrator made (not the executor's progress).
    core::AuditRecord lastAudit()
    {
        const auto history = peopleAudit();
        if (!history.empty())
            return history.back();
        ADD_FAILURE() << "no administrator's change in the audit";
        return {};
    }

    TempDir m_dir;
    std::vector<std::unique_ptr<NodeProcess>> m_nodes;
    std::unique_ptr<ControllerProcess> m_controller;
};

} // namespace shardmap::testing
