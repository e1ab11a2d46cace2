// PlanWizard's implementation: the scenario, preview and confirmation pages, plans computed on the
// pool, and the confirmed plan submitted through the connection.
#include "widgets/wizards/plan_wizard.h"

#include "core/admin/fleet_admin.h"
#include "core/map/index_templates.h"
#include "core/migration/migration_requests.h"
#include "widgets/charts/load_bars_chart.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/plan_note_text.h"
#include "widgets/wizards/plan_moves_model.h"
#include "widgets/wizards/plan_wizard_texts.h"

#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QWizardPage>

namespace shardmap::widgets {

namespace {

QString bytesText(double bytes)
{
    return formatBytes(bytes);
}

QString durationText(double seconds)
{
    return formatDuration(static_cast<qint64>(seconds + 0.5));
}

QString objectiveText(core::Objective objective)
{
    switch (objective) {
    case core::Objective::Bytes: return PlanWizard::tr("Bytes");
    case core::Objective::Docs: return PlanWizard::tr("Docs");
    case core::Objective::QueryLoad: return PlanWizard::tr("Queries/s");
    case core::Objective::WriteLoad: return PlanWizard::tr("Writes/s");
    case core::Objective::NodeDisk: return PlanWizard::tr("Node disk");
    }
    return {};
}

} // namespace

// Step 1: the scenario and what it acts on.
class ScenarioPage : public QWizardPage {
public:
    explicit ScenarioPage(PlanWizard* wizard)
        : m_wizard(wizard)
    {
        setTitle(PlanWizard::tr("What should change?"));
        auto* layout = new QVBoxLayout(this);
        layout->addWidget(wizard->buildScenarioFields());
    }

    bool isComplete() const override
    {
        const core::ScenarioRequest request = m_wizard->request();
        switch (request.scenario) {
        case core::Scenario::Rebalance: return true;
        case core::Scenario::Merge: return !request.subjects.empty() && !request.into.empty();
        case core::Scenario::Split:
        case core::Scenario::Isolate: return !request.subjects.empty() && !request.newShard.empty();
        case core::Scenario::Reindex:
            return !request.toTemplate.empty()
                && (request.all || !request.fromTemplate.empty() || !request.subjects.empty());
        default: return !request.subjects.empty();
        }
    }

private:
    PlanWizard* m_wizard;
};

// Step 2: the plan, re-planned live as the band and budget change.
class PreviewPage : public QWizardPage {
public:
    explicit PreviewPage(PlanWizard* wizard)
        : m_wizard(wizard)
    {
        setTitle(PlanWizard::tr("Preview"));
        auto* layout = new QVBoxLayout(this);
        layout->addWidget(wizard->buildPreview());
    }

    void initializePage() override
    {
        setSubTitle(scenarioTitle(m_wizard->scenario()));
        m_wizard->replan();
    }

    // Not while a re-plan is pending or running: Next must confirm the plan on the screen.
    bool isComplete() const override
    {
        const auto& result = m_wizard->result();
        return !m_wizard->planning() && !m_wizard->m_replanPending && result
            && (!result->plan.moves.empty() || result->plan.kind != "move" || !result->plan.newShards.empty());
    }

private:
    PlanWizard* m_wizard;
};

// Step 3: the reason, then the plan is queued as one operation.
class ConfirmPage : public QWizardPage {
public:
    explicit ConfirmPage(PlanWizard* wizard)
        : m_wizard(wizard)
    {
        setTitle(PlanWizard::tr("Queue the plan"));
        setButtonText(QWizard::FinishButton, PlanWizard::tr("&Queue"));
        auto* layout = new QFormLayout(this);
        wizard->m_confirmSummary = new QLabel(this);
        wizard->m_confirmSummary->setWordWrap(true);
        layout->addRow(wizard->m_confirmSummary);
        wizard->m_reason = new QLineEdit(this);
        wizard->m_reason->setPlaceholderText(PlanWizard::tr("Why, for the audit log"));
        auto* label = new QLabel(PlanWizard::tr("&Reason:"), this);
        label->setBuddy(wizard->m_reason);
        layout->addRow(label, wizard->m_reason);
        wizard->m_applyMessage = new InlineMessage(this);
        wizard->m_applyMessage->setObjectName(QStringLiteral("applyMessage"));
        layout->addRow(wizard->m_applyMessage);
        connect(wizard->m_reason, &QLineEdit::textChanged, this, &QWizardPage::completeChanged);
    }

    // The plan shown here is the one queued, whatever the preview does meanwhile.
    void initializePage() override
    {
        m_wizard->m_confirmed = m_wizard->result();
        m_wizard->m_confirmSummary->setText(m_wizard->summaryText());
        m_wizard->m_applyMessage->clear();
    }

    bool isComplete() const override
    {
        return !m_wizard->m_applying && !m_wizard->m_reason->text().trimmed().isEmpty();
    }

    // Finish queues the plan and stays open until the store answered: closed when it was
    // queued, the reason inline when it was refused.
    bool validatePage() override
    {
        if (m_wizard->m_applied)
            return true;
        m_wizard->applyPlan();
        return false;
    }

private:
    PlanWizard* m_wizard;
};

QString PlanWizard::rateBasisText(const core::PlanSummary& summary)
{
    if (summary.rateSource == "throttle")
        return PlanWizard::tr("the executor's throttle");
    if (summary.rateSource == "measured")
        return PlanWizard::tr(
            "measured: the median of %n migration(s)", nullptr, static_cast<int>(summary.measuredMigrations));
    return PlanWizard::tr("assumed until %1 migrations that copied at least %2 docs are measured, %3 so far")
        .arg(summary.migrationsNeeded)
        .arg(QLocale().toString(qulonglong(core::kMinMeasuredMigrationDocs)))
        .arg(summary.measuredMigrations);
}

QString PlanWizard::rateSourceText(const std::string& source)
{
    if (source == "throttle")
        return PlanWizard::tr("the executor's throttle");
    if (source == "measured")
        return PlanWizard::tr("measured on recent migrations");
    return PlanWizard::tr("assumed: nothing measured yet");
}

PlanWizard::PlanWizard(FleetConnection* connection, core::Scenario scenario, const QString& subject, QWidget* parent)
    : QWizard(parent)
    , m_connection(connection)
    , m_moves(new PlanMovesModel(this))
{
    setWindowTitle(tr("Plan wizard"));
    setPage(ScenarioPageId, new ScenarioPage(this));
    setPage(PreviewPageId, new PreviewPage(this));
    setPage(ConfirmPageId, new ConfirmPage(this));
    setScenario(scenario);
    if (!subject.isEmpty())
        setSubject(subject);
    connect(connection, &FleetConnection::mapChanged, this, [this] { fillChoices(); });
    resize(960, 720);
}

PlanWizard::~PlanWizard() = default;

void PlanWizard::reject()
{
    // The request is with the store: closing now would hide whether the plan was queued.
    if (m_applying) {
        m_applyMessage->show(tr("Queueing… wait for the store's answer."), InlineMessage::Kind::Info);
        return;
    }
    QWizard::reject();
}

QList<QPair<core::Scenario, QString>> PlanWizard::entries()
{
    return { { core::Scenario::Rebalance, tr("&Rebalance…") }, { core::Scenario::AddShards, tr("&Add shards…") },
        { core::Scenario::Drain, tr("&Drain a shard…") }, { core::Scenario::RetireNode, tr("Re&tire a node…") },
        { core::Scenario::Split, tr("&Split a shard…") }, { core::Scenario::Merge, tr("&Merge shards…") },
        { core::Scenario::Isolate, tr("&Isolate a space…") },
        { core::Scenario::Reindex, tr("Change inde&x settings…") } };
}

QWidget* PlanWizard::buildScenarioFields()
{
    auto* box = new QWidget(this);
    auto* form = new QFormLayout(box);
    m_scenario = new QComboBox(box);
    for (auto value :
        { core::Scenario::Rebalance, core::Scenario::AddShards, core::Scenario::Drain, core::Scenario::RetireNode,
            core::Scenario::Split, core::Scenario::Merge, core::Scenario::Isolate, core::Scenario::Reindex })
        m_scenario->addItem(scenarioTitle(value), static_cast<int>(value));
    m_scenarioHelp = new QLabel(box);
    m_scenarioHelp->setWordWrap(true);
    m_subject = new QComboBox(box);
    m_subject->setEditable(true);
    m_space = new QLineEdit(box);
    m_space->setPlaceholderText(tr("Space id"));
    m_newShards = new QLineEdit(box);
    m_newShards->setPlaceholderText(tr("s9@n2, s10@n3, or empty shards by id"));
    m_newShard = new QLineEdit(box);
    m_node = new QComboBox(box);
    m_into = new QComboBox(box);
    m_template = new QComboBox(box);
    m_reindexShards = new QLineEdit(box);
    m_reindexShards->setPlaceholderText(tr("all, template:NAME, or shard ids"));
    const auto row = [&](const QString& text, QWidget* field) {
        auto* label = new QLabel(text, box);
        label->setBuddy(field);
        form->addRow(label, field);
        return label;
    };
    // Mnemonics stay clear of the wizard's own buttons (&Back, &Next, &Finish, &Help).
    row(tr("&Scenario:"), m_scenario);
    form->addRow(m_scenarioHelp);
    m_subjectLabel = row(QString(), m_subject);
    row(tr("Sp&ace to isolate:"), m_space);
    row(tr("Shards to &fill:"), m_newShards);
    row(tr("Ne&w shard:"), m_newShard);
    row(tr("N&ode of the new shard:"), m_node);
    row(tr("&Into shard:"), m_into);
    row(tr("Shards to rebuil&d:"), m_reindexShards);
    row(tr("Te&mplate to build with:"), m_template);
    connect(m_scenario, &QComboBox::currentIndexChanged, this, &PlanWizard::scenarioChanged);
    for (QLineEdit* edit : { m_space, m_newShards, m_newShard, m_reindexShards }) {
        connect(edit, &QLineEdit::textChanged, this, [this] { emit page(ScenarioPageId)->completeChanged(); });
    }
    for (QComboBox* combo : { m_subject, m_into, m_template }) {
        connect(combo, &QComboBox::currentTextChanged, this, [this] { emit page(ScenarioPageId)->completeChanged(); });
    }
    return box;
}

QWidget* PlanWizard::buildPreview()
{
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    layout->addLayout(buildPlanKnobs(box));
    m_summary = new QLabel(box);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings = new InlineMessage(box);
    m_warnings->setObjectName(QStringLiteral("planWarnings"));
    layout->addWidget(m_summary);
    layout->addWidget(m_warnings);
    auto* split = new QSplitter(Qt::Vertical, box);
    m_chart = new LoadBarsChart(split);
    m_movesView = new QTableView(split);
    m_movesView->setModel(m_moves);
    m_movesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_movesView->horizontalHeader()->setStretchLastSection(true);
    m_movesView->verticalHeader()->hide();
    layout->addWidget(split, 1);
    replanWhenKnobsChange();
    return box;
}

// The planner's knobs (band, most moves) and the preview's buttons, in one row.
QHBoxLayout* PlanWizard::buildPlanKnobs(QWidget* box)
{
    auto* knobs = new QHBoxLayout;
    m_band = new QDoubleSpinBox(box);
    m_band->setRange(1, 50);
    m_band->setSuffix(QStringLiteral(" %"));
    m_band->setValue(10);
    m_maxMoves = new QSpinBox(box);
    m_maxMoves->setRange(0, 1000000);
    m_maxMoves->setSpecialValueText(tr("no limit"));
    auto* bandLabel = new QLabel(tr("B&and:"), box);
    bandLabel->setBuddy(m_band);
    auto* movesLabel = new QLabel(tr("&Most moves:"), box);
    movesLabel->setBuddy(m_maxMoves);
    auto* refresh = new QPushButton(tr("&Refresh figures"), box);
    m_editInPlanMode = new QPushButton(tr("&Edit in plan mode"), box);
    knobs->addWidget(bandLabel);
    knobs->addWidget(m_band);
    knobs->addWidget(movesLabel);
    knobs->addWidget(m_maxMoves);
    knobs->addStretch(1);
    knobs->addWidget(refresh);
    knobs->addWidget(m_editInPlanMode);
    connect(refresh, &QPushButton::clicked, this, &PlanWizard::refreshFigures);
    connect(m_editInPlanMode, &QPushButton::clicked, this, &PlanWizard::editInPlanModeRequested);
    m_editInPlanMode->setEnabled(false);
    return knobs;
}

// Parameters changed on the preview page re-plan once the typing stops.
void PlanWizard::replanWhenKnobsChange()
{
    auto* debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(250);
    connect(debounce, &QTimer::timeout, this, [this] {
        m_replanPending = false;
        replan();
    });
    const auto pending = [this, debounce] {
        m_replanPending = true;
        debounce->start();
        emit page(PreviewPageId)->completeChanged();
    };
    connect(m_band, &QDoubleSpinBox::valueChanged, this, pending);
    connect(m_maxMoves, &QSpinBox::valueChanged, this, pending);
}

core::Scenario PlanWizard::scenario() const
{
    return static_cast<core::Scenario>(m_scenario->currentData().toInt());
}

void PlanWizard::setScenario(core::Scenario scenario)
{
    const int index = m_scenario->findData(static_cast<int>(scenario));
    if (index == m_scenario->currentIndex())
        scenarioChanged();
    m_scenario->setCurrentIndex(index);
}

void PlanWizard::scenarioChanged()
{
    const core::Scenario current = scenario();
    m_generation.invalidate();
    m_shownShards.clear();
    m_scenarioHelp->setText(scenarioHelp(current));
    auto* form = qobject_cast<QFormLayout*>(m_subject->parentWidget()->layout());
    const bool newShard = current == core::Scenario::Split || current == core::Scenario::Isolate;
    m_subjectLabel->setText(subjectLabel(current));
    form->setRowVisible(m_subject, !m_subjectLabel->text().isEmpty());
    form->setRowVisible(m_space, current == core::Scenario::Isolate);
    form->setRowVisible(m_newShards, current == core::Scenario::AddShards);
    form->setRowVisible(m_newShard, newShard);
    form->setRowVisible(m_node, newShard);
    form->setRowVisible(m_into, current == core::Scenario::Merge);
    form->setRowVisible(m_reindexShards, current == core::Scenario::Reindex);
    form->setRowVisible(m_template, current == core::Scenario::Reindex);
    clearHiddenFields(current);
    fillChoices();
    setWindowTitle(scenarioTitle(current));
    m_result.reset();
    emit page(ScenarioPageId)->completeChanged();
}

// What was typed for another scenario is not this one's parameter: a node id is no shard to
// drain, a space to isolate is no shard to fill.
void PlanWizard::clearHiddenFields(core::Scenario current)
{
    auto* form = qobject_cast<QFormLayout*>(m_subject->parentWidget()->layout());
    for (QLineEdit* edit : { m_space, m_newShards, m_newShard, m_reindexShards }) {
        if (!form->isRowVisible(edit))
            edit->clear();
    }
    if (!form->isRowVisible(m_node))
        m_node->setCurrentIndex(0);
    const bool nodes = current == core::Scenario::RetireNode;
    if (!form->isRowVisible(m_subject) || nodes != m_subjectIsNode)
        m_subject->setCurrentText({});
    m_subjectIsNode = nodes;
}

// The shards (or nodes) the map offers for the current scenario, keeping what is typed.
void PlanWizard::fillChoices()
{
    const MapPtr map = m_connection->map();
    const QString subject = m_subject->currentText();
    const QString node = m_node->currentData().toString();
    const QString into = m_into->currentText();
    QStringList shards;
    QStringList nodes;
    if (map) {
        for (const auto& [id, shard] : map->shards) {
            if (shard.value.state != core::ShardState::Retired)
                shards.push_back(qs(id));
        }
        for (const auto& [id, record] : map->nodes) {
            if (!record.value.retired)
                nodes.push_back(qs(id));
        }
    }
    fillTemplates(map);
    if (shards == m_shownShards && nodes == m_shownNodes && m_subject->count() > 0)
        return;
    m_shownShards = shards;
    m_shownNodes = nodes;
    const QSignalBlocker blockSubject(m_subject);
    const QSignalBlocker blockInto(m_into);
    m_subject->clear();
    m_subject->addItems(scenario() == core::Scenario::RetireNode ? nodes : shards);
    m_subject->setCurrentText(subject);
    m_into->clear();
    m_into->addItems(shards);
    m_into->setCurrentText(into);
    m_node->clear();
    m_node->addItem(tr("(the same node)"), QString());
    for (const QString& id : nodes)
        m_node->addItem(id, id);
    m_node->setCurrentIndex(std::max(0, m_node->findData(node)));
}

// Every template version of the map, the newest last, keeping the one picked.
void PlanWizard::fillTemplates(const MapPtr& map)
{
    QStringList labels;
    for (const core::IndexTemplateRecord& record :
        map ? core::templatesOf(*map) : std::vector<core::IndexTemplateRecord> {})
        labels.push_back(qs(core::templateLabel(record.name, record.version)));
    if (labels.size() == m_template->count())
        return;
    const QString picked = m_template->currentText();
    const QSignalBlocker block(m_template);
    m_template->clear();
    m_template->addItems(labels);
    m_template->setCurrentIndex(
        std::max(0, m_template->findText(picked.isEmpty() ? labels.value(labels.size() - 1) : picked)));
}

core::ScenarioRequest PlanWizard::request() const
{
    core::ScenarioRequest request;
    request.scenario = scenario();
    switch (request.scenario) {
    case core::Scenario::Rebalance: break;
    case core::Scenario::AddShards:
        for (const QString& part :
            m_newShards->text().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
            request.subjects.push_back(part.toStdString());
        break;
    case core::Scenario::Isolate:
        if (!m_space->text().trimmed().isEmpty())
            request.subjects.push_back(m_space->text().trimmed().toStdString());
        break;
    case core::Scenario::Reindex: reindexRequest(request); break;
    default:
        if (!m_subject->currentText().trimmed().isEmpty())
            request.subjects.push_back(m_subject->currentText().trimmed().toStdString());
    }
    request.into = m_into->currentText().trimmed().toStdString();
    request.newShard = m_newShard->text().trimmed().toStdString();
    request.node = m_node->currentData().toString().toStdString();
    return request;
}

void PlanWizard::setTemplate(const QString& label)
{
    m_template->setCurrentIndex(std::max(0, m_template->findText(label)));
}

// "all", "template:NAME[:VERSION]" or shard ids; the template picked.
void PlanWizard::reindexRequest(core::ScenarioRequest& request) const
{
    const QString chosen = m_reindexShards->text().trimmed();
    if (chosen == QLatin1String("all"))
        request.all = true;
    else if (chosen.startsWith(QLatin1String("template:")))
        request.fromTemplate = chosen.mid(9).toStdString();
    else
        for (const QString& part : chosen.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
            request.subjects.push_back(part.toStdString());
    request.toTemplate = m_template->currentText().trimmed().toStdString();
}

void PlanWizard::setSubject(const QString& subject)
{
    if (scenario() == core::Scenario::Reindex)
        m_reindexShards->setText(subject);
    else if (scenario() == core::Scenario::Isolate)
        m_space->setText(subject);
    else if (scenario() == core::Scenario::AddShards)
        m_newShards->setText(subject);
    else
        m_subject->setCurrentText(subject);
}

void PlanWizard::setNewShard(const QString& id, const QString& node)
{
    m_newShard->setText(id);
    if (m_node->findData(node) < 0 && !node.isEmpty())
        m_node->addItem(node, node);
    m_node->setCurrentIndex(std::max(0, m_node->findData(node)));
}

void PlanWizard::setInto(const QString& shard)
{
    m_into->setCurrentText(shard);
}

void PlanWizard::setBand(double band)
{
    m_band->setValue(band * 100);
}

void PlanWizard::setMaxMoves(int moves)
{
    m_maxMoves->setValue(moves);
}

void PlanWizard::setReason(const QString& reason)
{
    m_reason->setText(reason);
}

core::PlannerOptions PlanWizard::plannerOptions() const
{
    core::PlannerOptions options;
    options.band = m_band->value() / 100;
    options.maxMoves = static_cast<std::size_t>(m_maxMoves->value());
    return options;
}

void PlanWizard::refreshFigures()
{
    m_input.reset();
    replan();
}

void PlanWizard::replan()
{
    const std::uint64_t ticket = m_generation.next();
    auto store = m_connection->store();
    if (!store) {
        m_result.reset();
        m_error = tr("Not connected to a shard map");
        showResult();
        return;
    }
    if (!m_input) {
        if (m_gathering)
            return;
        m_gathering = true;
        showResult();
        auto nodes = m_connection->requestNodes();
        runInBackground(
            m_connection->pool(), this,
            [store, nodes] {
                core::FleetAdmin admin(*store, *nodes);
                core::MigrationRequests& requests = admin.migrations();
                return requests.plannerInput();
            },
            [this](core::Result<core::PlannerInput> input) {
                m_gathering = false;
                if (!input) {
                    m_result.reset();
                    m_error = tr("Could not read the fleet's figures: %1").arg(qs(input.error().describe()));
                    showResult();
                    return;
                }
                m_input = std::make_shared<const core::PlannerInput>(std::move(*input));
                replan();
            });
        return;
    }
    m_planning = true;
    showResult();
    runInBackground(
        m_connection->pool(), this,
        [input = m_input, request = request(), options = plannerOptions()] {
            return core::planScenario(*input, request, options);
        },
        [this, ticket](core::Result<core::PlanResult> result) { planArrived(ticket, std::move(result)); });
}

void PlanWizard::planArrived(std::uint64_t ticket, core::Result<core::PlanResult> result)
{
    if (!m_generation.isCurrent(ticket))
        return;
    m_planning = false;
    if (result) {
        m_result = std::move(*result);
        m_error.clear();
    } else {
        m_result.reset();
        // A refusal that says when the plan can run, in the console's language and local time.
        m_error = translatedError(result.error());
    }
    showResult();
}

void PlanWizard::showResult()
{
    if (m_result) {
        m_moves->setMoves(m_result->plan.moves, m_result->moveNotes, targetNodes());
        m_chart->setOutcomes(m_result->shards);
    } else {
        // No plan, no bars: a failed plan never leaves the previous one's chart on screen.
        m_moves->setMoves({});
        m_chart->clear();
    }
    m_summary->setText(summaryText());
    m_warnings->show(warningsText(), m_error.isEmpty() ? InlineMessage::Kind::Warning : InlineMessage::Kind::Error);
    const bool editable = m_result && !m_result->plan.moves.empty() && m_result->plan.newShards.empty() && !planning();
    m_editInPlanMode->setEnabled(editable);
    m_editInPlanMode->setToolTip(m_result && !m_result->plan.newShards.empty()
            ? tr("Plan mode edits moves between shards that exist; this plan creates shards")
            : QString());
    emit page(PreviewPageId)->completeChanged();
    if (!planning())
        emit planReady();
}

// The nodes each target of the plan keeps a copy on, its primary's first: a shard of the map with
// its replicas (lost ones left out), a shard the plan makes on its one node.
std::map<std::string, std::vector<std::string>> PlanWizard::targetNodes() const
{
    std::map<std::string, std::vector<std::string>> nodes;
    const MapPtr map = m_connection->map();
    for (const core::PlannedMove& move : m_result->plan.moves) {
        const core::ShardRecord* shard = map ? map->shard(move.to) : nullptr;
        if (!shard || nodes.contains(move.to))
            continue;
        std::vector<std::string>& on = nodes[move.to];
        on.push_back(shard->node);
        for (const core::ShardCopy& copy : shard->replicas) {
            if (copy.state != core::CopyState::Lost)
                on.push_back(copy.node);
        }
    }
    for (const core::ShardRecord& created : m_result->plan.newShards)
        nodes[created.id] = { created.node };
    return nodes;
}

QString PlanWizard::summaryText() const
{
    if (m_gathering)
        return tr("Reading the fleet's figures…");
    if (m_planning)
        return tr("Planning…");
    if (!m_result)
        return {};
    const core::PlanSummary& summary = m_result->summary;
    if (m_result->plan.moves.empty()) {
        return summary.balancedBefore ? tr("The fleet is within the band: nothing to move.")
                                      : tr("No move would make the fleet more even.");
    }
    QStringList lines;
    lines << tr("%n move(s): %1 and %2 docs to copy; about %3 at %4 docs/s per migration (%5).", nullptr,
        static_cast<int>(summary.moves))
                 .arg(bytesText(static_cast<double>(summary.bytesMoved)))
                 .arg(QLocale().toString(qulonglong(summary.docsMoved)))
                 .arg(durationText(summary.estimatedSeconds))
                 .arg(QLocale().toString(summary.docsPerSecondPerMigration, 'f', 0))
                 .arg(rateBasisText(summary));
    if (summary.lowerBoundBytes > 0)
        lines << tr("At least %1 must move.").arg(bytesText(static_cast<double>(summary.lowerBoundBytes)));
    for (const core::ObjectiveSpread& spread : summary.objectives) {
        if (spread.mean <= 0)
            continue;
        lines << tr("%1: largest shard %2× the mean before, %3× after; spread %4 → %5.")
                     .arg(objectiveText(spread.objective))
                     .arg(QLocale().toString(spread.maxOverMeanBefore, 'f', 2))
                     .arg(QLocale().toString(spread.maxOverMeanAfter, 'f', 2))
                     .arg(QLocale().toString(spread.stddevBefore, 'f', 3))
                     .arg(QLocale().toString(spread.stddevAfter, 'f', 3));
    }
    return lines.join(QLatin1Char('\n'));
}

QString PlanWizard::warningsText() const
{
    if (!m_error.isEmpty())
        return tr("The plan could not be made: %1").arg(m_error);
    if (!m_result || m_result->warnings.empty())
        return {};
    QStringList lines;
    const bool notes = m_result->warningNotes.size() == m_result->warnings.size();
    for (std::size_t i = 0; i < m_result->warnings.size(); ++i) {
        lines << tr("Warning: %1").arg(notes ? planNoteText(m_result->warningNotes[i]) : qs(m_result->warnings[i]));
    }
    return lines.join(QLatin1Char('\n'));
}

void PlanWizard::applyPlan()
{
    if (!m_confirmed || m_applying || !m_connection->store())
        return;
    core::Plan plan = m_confirmed->plan;
    const QString reason = m_reason->text().trimmed();
    plan.createdBy
        = (m_connection->viaController() ? m_connection->identity() : MigrationsPage::actorName()).toStdString();
    plan.createdUnixMs = QDateTime::currentMSecsSinceEpoch();
    plan.reason = reason.toStdString();
    v1::AdminChange change;
    change.mutable_apply_plan()->set_plan_json(plan.encode());
    m_applying = true;
    m_applyMessage->show(tr("Queueing…"), InlineMessage::Kind::Info);
    emit page(ConfirmPageId)->completeChanged();
    m_connection->submitChange(change, reason, this, [this](ChangeResult made) { planApplied(std::move(made)); });
}

void PlanWizard::planApplied(ChangeResult made)
{
    m_applying = false;
    emit page(ConfirmPageId)->completeChanged();
    if (!made) {
        const core::Error& error = made.error();
        // Figures read again when the preview is shown again (Back), for a new plan.
        if (error.code == core::ErrorCode::Conflict)
            m_input.reset();
        const QString message = tr("Nothing was queued: %1").arg(FleetConnection::refusalText(error))
            + (error.code == core::ErrorCode::Conflict ? tr("\nGo back to plan again.") : QString());
        m_applyMessage->show(message, InlineMessage::Kind::Error);
        emit applyFailed(message);
        return;
    }
    if (made->has_awaiting_approval()) {
        // Recorded, not refused: the wizard's work is done (Finish again would ask twice); the
        // window says what awaits whom.
        m_applied = true;
        const QString text = FleetConnection::awaitingApprovalText(made->awaiting_approval());
        m_applyMessage->show(text, InlineMessage::Kind::Info);
        emit approvalRequested(QString::fromStdString(made->awaiting_approval().id()), text);
        accept();
        return;
    }
    auto operation = core::decodeOperation(made->record_json());
    if (!operation) {
        m_applyMessage->show(tr("Queued, but the answer could not be read: %1").arg(qs(operation.error().describe())),
            InlineMessage::Kind::Warning);
        return;
    }
    m_applied = true;
    QStringList ids;
    for (const std::string& id : operation->migrations)
        ids << qs(id);
    emit operationQueued(qs(operation->id), ids);
    accept();
}

} // namespace shardmap::widgets
