#pragma once

// `shardmap --demo`'s fleet: nodes, a shard map and shardmapd as real processes on loopback.

#include "widgets/session/connection_spec.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <QTimer>
#include <memory>
#include <vector>

class QProcess;
class QTemporaryDir;

namespace shardmap::widgets {

// `shardmap --demo`: a small fleet of real processes on loopback — shard nodes, a shard map in
// an SQLite store and a shardmapd serving the router — started without blocking the UI thread.
// Children are started from the thread that owns this object (the UI thread, which lives as long
// as the console) with PR_SET_PDEATHSIG and --exit-with-parent, so a crashed console leaves no
// orphans; stop() (also run by the destructor) ends them with SIGTERM, then SIGKILL.
class DemoFleet : public QObject {
    Q_OBJECT
public:
    struct Options {
        int nodes = 3;
        int shardsPerNode = 2;
        // Where data, logs and the store go; empty: a temporary directory removed by stop().
        QString directory;
        // How long a child may take to report its address.
        int startTimeoutMs = 30000;
    };

    explicit DemoFleet(QObject* parent = nullptr);
    ~DemoFleet() override;

    // Starts the fleet; progress, then ready or failed follow. Call once.
    void start(const Options& options);
    void start() { start(Options {}); }
    // Ends every child (SIGTERM, SIGKILL after a few seconds); waits for them. Idempotent.
    void stop();

    bool isReady() const { return m_ready; }
    // shardmapd's router address (HOST:PORT), empty before ready.
    QString routerAddress() const { return m_routerAddress; }
    QString storeUri() const { return m_storeUri; }
    // Process ids of the children started so far (for tests and diagnostics).
    QList<qint64> childPids() const;

    // Where a binary is taken from: $envName if set, next to this executable (installed), the
    // build tree's app/<buildDir>/ beside app/console/, or PATH. Empty if none exists.
    static QString findBinary(const char* envName, const QString& name, const QString& buildDir);

signals:
    void progress(const QString& text);
    void ready(const shardmap::widgets::ConnectionSpec& spec);
    void failed(const QString& error);

private:
    struct Child;

    Child* spawn(const QString& name, const QString& program, const QStringList& arguments);
    void readChildOutput(Child* child);
    void childListening(Child* child, const QString& address);
    void childExited(Child* child);
    void nodesListening();
    void registerFleet();
    void startController();
    void fail(const QString& error);
    QString logTail(const Child& child) const;

    Options m_options;
    std::unique_ptr<QTemporaryDir> m_tempDir;
    QString m_directory;
    QString m_nodeBinary;
    QString m_controllerBinary;
    QString m_storeUri;
    QString m_routerAddress;
    std::vector<std::unique_ptr<Child>> m_children;
    QThreadPool m_pool;
    QTimer m_startTimeout;
    bool m_ready = false;
    bool m_failed = false;
    bool m_stopped = false;
};

} // namespace shardmap::widgets
