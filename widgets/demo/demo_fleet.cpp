// DemoFleet's implementation: the children spawned and watched until they listen, the fleet registered
// off the UI thread, and every child ended on stop.
#include "widgets/demo/demo_fleet.h"

#include "core/admin/fleet_admin.h"
#include "core/balancer/balancer_policy.h"
#include "core/store/metadata_store.h"
#include "widgets/bridge/background.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace shardmap::widgets {

namespace {

const QString kListeningPrefix = QStringLiteral("listening on ");
constexpr int kTermGraceMs = 3000;

struct NodePlan {
    std::string id;
    std::string address;
    std::string zone;
    std::vector<std::string> shards;
};

// Registers the nodes and creates their shards the one way (FleetAdmin::createShard: on the node
// first, then in the map). Runs on a pool thread; returns an error text, empty on success.
std::string registerInStore(const std::string& storeUri, const std::vector<NodePlan>& plans)
{
    auto store = core::openStore(storeUri, true);
    if (!store)
        return store.error().describe();
    core::NodeClientPool nodes;
    core::FleetAdmin admin(**store, nodes);
    const core::Actor actor { "demo", "shardmap --demo" };
    for (const auto& plan : plans) {
        if (auto added = admin.map().addNode({ plan.id, plan.address, { { "zone", plan.zone } } }, actor); !added)
            return "node " + plan.id + ": " + added.error().describe();
        for (const auto& shard : plan.shards) {
            if (auto created = admin.createShard({ shard, plan.id }, actor); !created)
                return "shard " + shard + " on " + plan.id + ": " + created.error().describe();
        }
    }
    // The balancer decides and records in dry run, so that its page shows what it would do with
    // the demo's load without moving anything on its own.
    core::BalancerPolicy balancer;
    balancer.mode = core::BalancerMode::DryRun;
    balancer.evaluateEverySeconds = 30;
    if (auto set = core::setBalancerPolicy(**store, balancer, actor); !set)
        return "the balancer's policy: " + set.error().describe();
    return {};
}

} // namespace

struct DemoFleet::Child {
    QString name;
    std::unique_ptr<QProcess> process;
    QString logFile;
    QByteArray pending;
    QString address;
    bool isNode = false;
};

DemoFleet::DemoFleet(QObject* parent)
    : QObject(parent)
{
    m_pool.setMaxThreadCount(1);
    m_startTimeout.setSingleShot(true);
    connect(&m_startTimeout, &QTimer::timeout, this, [this] {
        QStringList waiting;
        for (const auto& child : m_children) {
            if (child->address.isEmpty())
                waiting << child->name;
        }
        fail(tr("The demo fleet did not start within %1 s (still waiting for: %2).")
                 .arg(m_options.startTimeoutMs / 1000)
                 .arg(waiting.isEmpty() ? tr("the shard map") : waiting.join(QStringLiteral(", "))));
    });
}

DemoFleet::~DemoFleet()
{
    stop();
}

QString DemoFleet::findBinary(const char* envName, const QString& name, const QString& buildDir)
{
    const QString fromEnv = qEnvironmentVariable(envName);
    if (!fromEnv.isEmpty())
        return fromEnv;
    const QDir here(QCoreApplication::applicationDirPath());
    for (const QString& candidate :
        { here.filePath(name), here.filePath(QStringLiteral("../%1/%2").arg(buildDir, name)) }) {
        if (QFileInfo(candidate).isExecutable())
            return QDir::cleanPath(candidate);
    }
    return QStandardPaths::findExecutable(name);
}

QList<qint64> DemoFleet::childPids() const
{
    QList<qint64> pids;
    for (const auto& child : m_children) {
        if (child->process->processId() > 0)
            pids << child->process->processId();
    }
    return pids;
}

void DemoFleet::start(const Options& options)
{
    m_options = options;
    m_nodeBinary = findBinary("SHARDMAP_NODE_BINARY", QStringLiteral("shardmap-node"), QStringLiteral("node"));
    m_controllerBinary
        = findBinary("SHARDMAP_CONTROLLER_BINARY", QStringLiteral("shardmapd"), QStringLiteral("controller"));
    const std::pair<QString, QString> binaries[]
        = { { QStringLiteral("shardmap-node"), m_nodeBinary }, { QStringLiteral("shardmapd"), m_controllerBinary } };
    for (const auto& [name, path] : binaries) {
        if (path.isEmpty()) {
            fail(tr("Cannot find %1: it is neither next to this program nor on PATH (set %2 to its path).")
                     .arg(name,
                         name == QLatin1String("shardmapd") ? QStringLiteral("SHARDMAP_CONTROLLER_BINARY")
                                                            : QStringLiteral("SHARDMAP_NODE_BINARY")));
            return;
        }
        if (!QFileInfo(path).isExecutable()) {
            fail(tr("Cannot run %1: %2 is not an executable file.").arg(name, path));
            return;
        }
    }

    if (m_options.directory.isEmpty()) {
        m_tempDir = std::make_unique<QTemporaryDir>(QDir::temp().filePath(QStringLiteral("shardmap-demo-XXXXXX")));
        if (!m_tempDir->isValid()) {
            fail(tr("Cannot create a temporary directory for the demo: %1").arg(m_tempDir->errorString()));
            return;
        }
        m_directory = m_tempDir->path();
    } else {
        m_directory = m_options.directory;
        QDir().mkpath(m_directory);
    }
    m_storeUri = QStringLiteral("sqlite:") + QDir(m_directory).filePath(QStringLiteral("map.db"));

    emit progress(tr("Demo: starting %n shard node(s)…", nullptr, m_options.nodes));
    m_startTimeout.start(m_options.startTimeoutMs);
    for (int i = 1; i <= m_options.nodes && !m_failed; ++i) {
        const QString id = QStringLiteral("node-%1").arg(i);
        Child* child = spawn(id, m_nodeBinary,
            { QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--data-dir"),
                QDir(m_directory).filePath(id), QStringLiteral("--node-id"), id, QStringLiteral("--min-free-bytes"),
                QStringLiteral("0"), QStringLiteral("--history-interval-ms"), QStringLiteral("2000"),
                QStringLiteral("--exit-with-parent") });
        if (child)
            child->isNode = true;
    }
}

DemoFleet::Child* DemoFleet::spawn(const QString& name, const QString& program, const QStringList& arguments)
{
    auto owned = std::make_unique<Child>();
    Child* child = owned.get();
    child->name = name;
    child->logFile = QDir(m_directory).filePath(name + QStringLiteral(".log"));
    child->process = std::make_unique<QProcess>();
    QProcess* process = child->process.get();
    process->setProgram(program);
    process->setArguments(arguments);
    process->setStandardErrorFile(child->logFile);
    // The death signal is tied to the thread that forks: this one, the UI thread, which lives as
    // long as the console. The getppid check covers a parent that died before prctl ran.
    const pid_t parentPid = ::getpid();
    process->setChildProcessModifier([parentPid] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parentPid)
            ::_exit(127);
    });
    connect(process, &QProcess::readyReadStandardOutput, this, [this, child] { readChildOutput(child); });
    connect(process, &QProcess::finished, this, [this, child] { childExited(child); });
    connect(process, &QProcess::errorOccurred, this, [this, child](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(tr("Cannot start %1 (%2): %3")
                     .arg(child->name, child->process->program(), child->process->errorString()));
    });
    m_children.push_back(std::move(owned));
    process->start();
    return m_failed ? nullptr : child;
}

void DemoFleet::readChildOutput(Child* child)
{
    child->pending += child->process->readAllStandardOutput();
    if (!child->address.isEmpty()) {
        child->pending.clear();
        return;
    }
    qsizetype newline = 0;
    while ((newline = child->pending.indexOf('\n')) >= 0) {
        const QString line = QString::fromUtf8(child->pending.left(newline)).trimmed();
        child->pending.remove(0, newline + 1);
        if (line.startsWith(kListeningPrefix)) {
            child->pending.clear();
            childListening(child, line.mid(kListeningPrefix.size()));
            return;
        }
    }
}

void DemoFleet::childListening(Child* child, const QString& address)
{
    child->address = address;
    if (m_failed || m_stopped)
        return;
    emit progress(tr("Demo: %1 is listening on %2").arg(child->name, address));
    if (!child->isNode) {
        m_routerAddress = address;
        m_ready = true;
        m_startTimeout.stop();
        ConnectionSpec spec;
        spec.storeUri = m_storeUri;
        emit progress(
            tr("Demo: fleet ready — router on %1, shard map %2, files in %3").arg(address, m_storeUri, m_directory));
        emit ready(spec);
        return;
    }
    nodesListening();
}

void DemoFleet::nodesListening()
{
    int listening = 0;
    for (const auto& child : m_children) {
        if (child->isNode && !child->address.isEmpty())
            ++listening;
    }
    if (listening == m_options.nodes)
        registerFleet();
}

void DemoFleet::registerFleet()
{
    emit progress(tr("Demo: registering nodes and creating shards in %1").arg(m_storeUri));
    std::vector<NodePlan> plans;
    int shard = 0;
    for (const auto& child : m_children) {
        if (!child->isNode)
            continue;
        NodePlan plan;
        plan.id = child->name.toStdString();
        plan.address = child->address.toStdString();
        plan.zone = std::string(1, static_cast<char>('a' + static_cast<int>(plans.size()) % 26));
        for (int i = 0; i < m_options.shardsPerNode; ++i)
            plan.shards.push_back("shard-" + std::to_string(++shard));
        plans.push_back(std::move(plan));
    }
    runInBackground(
        m_pool, this, [uri = m_storeUri.toStdString(), plans] { return registerInStore(uri, plans); },
        [this](const std::string& error) {
            if (m_failed || m_stopped)
                return;
            if (!error.empty()) {
                fail(tr("Cannot set up the demo's shard map: %1").arg(QString::fromStdString(error)));
                return;
            }
            startController();
        });
}

void DemoFleet::startController()
{
    emit progress(tr("Demo: starting shardmapd (the router)…"));
    spawn(QStringLiteral("shardmapd"), m_controllerBinary,
        { QStringLiteral("--store"), m_storeUri, QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
            QStringLiteral("--id"), QStringLiteral("demo"), QStringLiteral("--exit-with-parent") });
}

void DemoFleet::childExited(Child* child)
{
    if (m_stopped)
        return;
    const QString how = child->process->exitStatus() == QProcess::CrashExit
        ? tr("crashed")
        : tr("exited with code %1").arg(child->process->exitCode());
    fail(tr("%1 %2: %3").arg(child->name, how, logTail(*child)));
}

QString DemoFleet::logTail(const Child& child) const
{
    QFile file(child.logFile);
    if (!file.open(QIODevice::ReadOnly))
        return tr("(no log)");
    const qint64 size = file.size();
    file.seek(std::max<qint64>(0, size - 800));
    const QString tail = QString::fromUtf8(file.readAll()).trimmed();
    return tail.isEmpty() ? tr("(no log)") : tail;
}

void DemoFleet::fail(const QString& error)
{
    if (m_failed || m_stopped)
        return;
    m_failed = true;
    m_startTimeout.stop();
    stop();
    emit failed(error);
}

void DemoFleet::stop()
{
    if (m_stopped)
        return;
    m_stopped = true;
    m_startTimeout.stop();
    for (const auto& child : m_children) {
        disconnect(child->process.get(), nullptr, this, nullptr);
        if (child->process->state() != QProcess::NotRunning)
            child->process->terminate();
    }
    const QDeadlineTimer deadline(kTermGraceMs);
    for (const auto& child : m_children) {
        QProcess& process = *child->process;
        if (process.state() == QProcess::NotRunning)
            continue;
        if (!process.waitForFinished(static_cast<int>(std::max<qint64>(1, deadline.remainingTime())))) {
            process.kill();
            process.waitForFinished(kTermGraceMs);
        }
    }
    m_tempDir.reset();
}

} // namespace shardmap::widgets
