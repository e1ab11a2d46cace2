// MapPage's implementation: a move's estimate and confirmation, its change submitted through the
// connection, and plan mode's undoable draft, files and applying.
#include "widgets/map/map_page.h"

#include "core/migration/backfill_rate.h"
#include "core/plan/planner.h"
#include "widgets/bridge/background.h"
#include "widgets/map/map_legend.h"
#include "widgets/map/shard_map_view.h"
#include "widgets/style/change_action.h"
#include "widgets/style/conversions.h"
#include "widgets/style/file_dialogs.h"
#include "widgets/style/format.h"
#include "widgets/style/inline_message.h"
#include "widgets/wizards/plan_wizard.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QSaveFile>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <cmath>
#include <memory>

namespace shardmap::widgets {

// One drafted move: the plan's moves before and after it.
class PlanMoveCommand final : public QUndoCommand {
public:
    PlanMoveCommand(
        MapPage* page, std::vector<core::PlannedMove> before, std::vector<core::PlannedMove> after, const QString& text)
        : QUndoCommand(text)
        , m_page(page)
        , m_before(std::move(before))
        , m_after(std::move(after))
    {
    }
    void redo() override { m_page->setPlanMoves(m_after); }
    void undo() override { m_page->setPlanMoves(m_before); }

private:
    MapPage* m_page;
    std::vector<core::PlannedMove> m_before;
    std::vector<core::PlannedMove> m_after;
};

namespace {

// The change the moves are: one space's migration, several spaces' moves as one operation (so a
// threshold counts them together), or the plan applied whole, as what it is (a rebalance, a
// drain ...): one operation with every move, or nothing and the reason.
v1::AdminChange changeOf(const std::vector<core::PlannedMove>& moves, const core::Plan* plan)
{
    v1::AdminChange change;
    if (plan) {
        core::Plan applied = *plan;
        applied.moves = moves;
        change.mutable_apply_plan()->set_plan_json(applied.encode());
    } else if (moves.size() == 1) {
        change.mutable_queue_migration()->set_space(moves.front().space);
        change.mutable_queue_migration()->set_target_shard(moves.front().to);
    } else {
        for (const core::PlannedMove& move : moves) {
            v1::MoveSpaces::Move* added = change.mutable_move_spaces()->add_moves();
            added->set_space(move.space);
            added->set_target_shard(move.to);
        }
    }
    return change;
}

// What a plan drafted at its base revision conflicts with now (empty: it still applies).
QStringList planConflicts(core::MetadataStore& store, const core::Plan& plan, QStringList& errors)
{
    QStringList changes;
    auto snapshot = store.snapshot();
    if (!snapshot) {
        errors.push_back(qs(snapshot.error().describe()));
        return changes;
    }
    auto map = core::MapSnapshot::decode(*snapshot);
    if (!map) {
        errors.push_back(qs(map.error().describe()));
        return changes;
    }
    const auto conflicts = plan.checkAgainst(*map);
    if (conflicts.empty())
        return changes;
    for (const auto& conflict : conflicts)
        changes.push_back(qs(conflict.message));
    // What else changed on the way, from the audit records.
    if (auto diff = core::diffRevisions(store, plan.baseRevision, map->revision)) {
        for (const std::string& line : core::describeDiff(*diff, plan)) {
            if (!changes.contains(qs(line)))
                changes.push_back(qs(line));
        }
    }
    return changes;
}

} // namespace

MapPage::MapPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
    , m_model(new ShardMapModel(this))
    , m_view(new ShardMapView(this))
    , m_undo(new QUndoStack(this))
{
    m_view->setModel(m_model);
    m_message = new InlineMessage(this);
    m_outcomeTimer = new QTimer(this);
    m_outcomeTimer->setSingleShot(true);
    m_outcomeTimer->setInterval(kOutcomeShownMs);
    connect(m_outcomeTimer, &QTimer::timeout, this, &MapPage::clearOutcome);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    buildToolBar();
    m_legend = new MapLegend(this);
    layout->addWidget(m_legend);
    layout->addWidget(m_message);
    layout->addWidget(m_view, 1);

    // A drop's moves: the model checked them against the rules as it took the drop.
    connect(m_model, &ShardMapModel::movesRequested, this, [this](const QStringList& spaces, const QString& shard) {
        startMoves(spaces, shard, {}, true, RulesChecked::AtDrop);
    });
    connect(m_view, &ShardMapView::dragEntered, this, &MapPage::clearOutcome);
    connect(m_view, &ShardMapView::dropRefused, this, [this](const QString& why) { showMessage(why, true); });
    connect(m_connection, &FleetConnection::mapChanged, this, &MapPage::mapChanged);
    connect(m_connection, &FleetConnection::stateChanged, this, &MapPage::updateActions);
    connect(m_connection, &FleetConnection::identityChanged, this, &MapPage::updateActions);
    connect(m_connection, &FleetConnection::nodeSample, m_model, &ShardMapModel::applySample);
    connect(m_undo, &QUndoStack::indexChanged, this, &MapPage::updateActions);
    m_view->viewport()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view->viewport(), &QWidget::customContextMenuRequested, this, &MapPage::showLaneMenu);
    if (m_connection->map())
        mapChanged(m_connection->map());
    updateActions();
}

MapPage::~MapPage()
{
    // Children (undo stack, selection model) are destroyed after this and still signal.
    disconnect(m_undo, nullptr, this, nullptr);
    disconnect(m_view->selectionModel(), nullptr, this, nullptr);
    disconnect(m_model, nullptr, this, nullptr);
    releaseSpaceDetail();
}

void MapPage::buildToolBar()
{
    auto* bar = new QToolBar(this);
    layout()->addWidget(bar);
    addViewControls(bar);
    m_moveTo = bar->addAction(tr("Move to…"), this, &MapPage::moveSelectionTo);
    m_moveTo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    bar->addSeparator();
    addPlanActions(bar);
    bar->addSeparator();
    addWizardsMenu(bar);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MapPage::updateActions);
}

// What the tiles are sized by, and finding a space.
void MapPage::addViewControls(QToolBar* bar)
{
    m_sizeBy = new QComboBox(bar);
    m_sizeBy->addItem(tr("Size by docs"), QVariant::fromValue(ShardMapModel::SizeBy::Docs));
    m_sizeBy->addItem(tr("Size by bytes"), QVariant::fromValue(ShardMapModel::SizeBy::Bytes));
    connect(m_sizeBy, &QComboBox::currentIndexChanged, this,
        [this] { m_model->setSizeBy(m_sizeBy->currentData().value<ShardMapModel::SizeBy>()); });
    bar->addWidget(m_sizeBy);
    m_find = new QLineEdit(bar);
    m_find->setPlaceholderText(tr("Find space…"));
    m_find->setClearButtonEnabled(true);
    connect(m_find, &QLineEdit::returnPressed, this, [this] { findSpace(m_find->text().trimmed()); });
    bar->addWidget(m_find);
}

// Plan mode and the draft's undo, redo, files, discarding and applying.
void MapPage::addPlanActions(QToolBar* bar)
{
    m_planToggle = bar->addAction(tr("Plan mode"));
    m_planToggle->setCheckable(true);
    connect(m_planToggle, &QAction::toggled, this, &MapPage::setPlanMode);
    QAction* undo = m_undo->createUndoAction(this, tr("Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = m_undo->createRedoAction(this, tr("Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    bar->addAction(undo);
    bar->addAction(redo);
    addAction(undo);
    addAction(redo);
    m_save = bar->addAction(tr("Save plan…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save plan"), inDocuments(), tr("Plans (*.json)"));
        if (!path.isEmpty())
            savePlan(path);
    });
    bar->addAction(tr("Open plan…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open plan"), inDocuments(), tr("Plans (*.json)"));
        if (!path.isEmpty())
            openPlan(path);
    });
    m_discard = bar->addAction(tr("Discard plan"), this, &MapPage::discardPlan);
    m_apply = bar->addAction(tr("Apply plan"), this, &MapPage::applyPlan);
}

void MapPage::addWizardsMenu(QToolBar* bar)
{
    m_wizards = new QToolButton(bar);
    m_wizards->setText(tr("Wizards"));
    m_wizards->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_wizards);
    for (const auto& [scenario, text] : PlanWizard::entries())
        m_wizardActions.push_back(menu->addAction(
            text, this, [this, scenario = scenario] { emit wizardRequested(static_cast<int>(scenario), {}); }));
    m_wizards->setMenu(menu);
    bar->addWidget(m_wizards);
}

void MapPage::updateActions()
{
    // A read-only connection moves nothing: no drops, no "Move to", no applying a plan (a plan
    // may still be drafted and saved).
    const bool writable = !m_connection->readOnly();
    m_view->setAcceptDrops(writable);
    m_view->viewport()->setAcceptDrops(writable);
    enableChange(m_moveTo, m_connection, !selectedSpaces().isEmpty() && !m_busy);
    const bool hasPlan = !m_plan.moves.empty();
    enableChange(m_apply, m_connection, hasPlan && !m_busy);
    // Wizards queue migrations: none is offered on a read-only connection.
    enableChange(m_wizards, m_connection);
    for (QAction* wizard : std::as_const(m_wizardActions))
        enableChange(wizard, m_connection);
    m_save->setEnabled(hasPlan);
    m_discard->setEnabled(hasPlan || m_planMode);
}

void MapPage::mapChanged(const MapPtr& map)
{
    m_model->setMap(map);
    syncSpaceDetail();
}

// The tiles need per-space figures, which node streams only carry on request.
void MapPage::syncSpaceDetail()
{
    const MapPtr map = m_connection->map();
    if (!isVisible() || !map)
        return;
    for (const auto& [id, node] : map->nodes) {
        const QString nodeId = QString::fromStdString(id);
        if (!m_detailNodes.contains(nodeId)) {
            m_detailNodes.insert(nodeId);
            m_connection->acquireSpaceDetail(nodeId);
        }
    }
}

void MapPage::releaseSpaceDetail()
{
    for (const QString& node : std::as_const(m_detailNodes))
        m_connection->releaseSpaceDetail(node);
    m_detailNodes.clear();
}

void MapPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    syncSpaceDetail();
}

void MapPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    releaseSpaceDetail();
}

void MapPage::showMessage(const QString& text, bool error)
{
    m_outcomeTimer->stop();
    m_message->show(text, error ? InlineMessage::Kind::Error : InlineMessage::Kind::Success);
}

void MapPage::showOutcome(const QString& text)
{
    showMessage(text, false);
    m_outcomeTimer->start();
}

void MapPage::clearOutcome()
{
    if (m_message->kind() == InlineMessage::Kind::Success)
        m_message->clear();
}

QString MapPage::messageText() const
{
    return m_message->shownText();
}

void MapPage::setConfirmer(Confirmer confirmer)
{
    m_confirmer = std::move(confirmer);
}

void MapPage::setSizeBy(ShardMapModel::SizeBy sizeBy)
{
    m_sizeBy->setCurrentIndex(sizeBy == ShardMapModel::SizeBy::Docs ? 0 : 1);
}

bool MapPage::findSpace(const QString& spaceId)
{
    if (m_view->scrollToSpace(spaceId)) {
        showMessage({}, false);
        return true;
    }
    showMessage(tr("No space %1 in the map").arg(spaceId), true);
    return false;
}

QStringList MapPage::selectedSpaces() const
{
    QStringList spaces;
    for (const QModelIndex& index : m_view->selectionModel()->selectedIndexes()) {
        if (index.parent().isValid())
            spaces.push_back(index.data(ShardMapModel::IdRole).toString());
    }
    spaces.sort();
    return spaces;
}

MoveEstimate MapPage::estimate(const QStringList& spaces, const QString& shard) const
{
    MoveEstimate estimate;
    estimate.spaces = spaces;
    estimate.target = shard;
    const core::MoveRules& rules = m_model->rules();
    const MapPtr map = m_model->map();
    std::vector<core::PlannedMove> moves = m_planMode ? m_plan.moves : std::vector<core::PlannedMove> {};
    std::vector<core::PlannedMove> these;
    // The planner's estimate needs only the moved spaces, the shards and the settings.
    core::PlannerInput input;
    for (const QString& space : spaces) {
        const std::string id = space.toStdString();
        const core::SpaceFigures figures = rules.figures(id);
        estimate.docs += figures.docs;
        estimate.bytes += figures.bytes;
        const std::string from = rules.projectedShard(id);
        if (!estimate.sources.contains(qs(from)))
            estimate.sources.push_back(qs(from));
        these.push_back({ id, from, shard.toStdString(), {}, figures.docs, figures.bytes });
        core::PlannerSpace planned;
        planned.id = id;
        planned.shard = from;
        planned.load.docs = static_cast<double>(figures.docs);
        planned.load.bytes = static_cast<double>(figures.bytes);
        input.spaces.push_back(std::move(planned));
    }
    moves.insert(moves.end(), these.begin(), these.end());
    if (map) {
        input.settings = map->settings.value;
        for (const auto& [id, record] : map->shards)
            input.shards.push_back({ record.value });
        if (const auto measured = core::measuredBackfillRate(*map))
            input.measuredDocsPerSecond = measured->docsPerSecond;
    }
    const core::MovesEstimate duration = core::estimateMoves(input, these);
    estimate.seconds = duration.seconds;
    estimate.docsPerSecond = duration.docsPerSecondPerMigration;
    estimate.rateSource = qs(duration.rateSource);
    const core::ShardFigures after = rules.projectedLoads(moves)[shard.toStdString()];
    estimate.targetDocsAfter = after.docs;
    estimate.targetBytesAfter = after.bytes;
    const core::ShardRecord* target = map ? map->shard(shard.toStdString()) : nullptr;
    if (target && target->capacityDocs > 0)
        estimate.targetFillAfter = static_cast<double>(after.docs) / static_cast<double>(target->capacityDocs);
    else if (target && target->capacityBytes > 0)
        estimate.targetFillAfter = static_cast<double>(after.bytes) / static_cast<double>(target->capacityBytes);
    return estimate;
}

bool MapPage::requestMoves(const QStringList& spaces, const QString& shard, const QString& reason, bool confirm)
{
    return startMoves(spaces, shard, reason, confirm, RulesChecked::No);
}

bool MapPage::startMoves(
    const QStringList& spaces, const QString& shard, const QString& reason, bool confirm, RulesChecked checked)
{
    clearOutcome();
    if (m_connection->readOnly()) {
        showMessage(m_connection->readOnlyReason(), true);
        return false;
    }
    if (checked == RulesChecked::No) {
        const QString refusal = m_model->moveRefusal(spaces, shard);
        if (!refusal.isEmpty()) {
            showMessage(refusal, true);
            return false;
        }
    }
    const core::MoveRules& rules = m_model->rules();
    std::vector<core::PlannedMove> moves;
    for (const QString& space : spaces)
        moves.push_back({ space.toStdString(), rules.projectedShard(space.toStdString()), shard.toStdString() });
    if (m_planMode) {
        draftMoves(moves, shard);
        return true;
    }
    QString why = reason;
    if (confirm && !confirmMoves(estimate(spaces, shard), why))
        return false;
    queueMoves(moves, why, false);
    return true;
}

void MapPage::draftMoves(const std::vector<core::PlannedMove>& moves, const QString& shard)
{
    startPlanIfEmpty();
    core::Plan after = m_plan;
    for (const auto& move : moves) {
        // A drafted move starts where the space is now, not where the draft had put it.
        const core::SpaceRecord* record = m_model->map()->space(move.space);
        after.addMove({ move.space, record ? record->shard : move.from, move.to });
    }
    m_undo->push(new PlanMoveCommand(this, m_plan.moves, after.moves,
        tr("Move %n space(s) to %1", nullptr, static_cast<int>(moves.size())).arg(shard)));
    showMessage({}, false);
}

QString MapPage::durationText(const MoveEstimate& estimate)
{
    const QString duration = formatDuration(static_cast<std::int64_t>(std::ceil(estimate.seconds)));
    return tr("about %1 at %2 docs/s per migration (%3)")
        .arg(duration, QLocale().toString(estimate.docsPerSecond, 'f', 0),
            PlanWizard::rateSourceText(estimate.rateSource.toStdString()));
}

bool MapPage::confirmMoves(const MoveEstimate& estimate, QString& reason)
{
    if (m_confirmer)
        return m_confirmer(estimate, reason);
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Move spaces"));
    auto* form = new QFormLayout(&dialog);
    const QLocale locale;
    form->addRow(tr("Spaces:"), new QLabel(estimate.spaces.join(QStringLiteral(", ")), &dialog));
    form->addRow(estimate.sources.size() == 1 ? tr("From shard:") : tr("From shards:"),
        new QLabel(estimate.sources.join(QStringLiteral(", ")), &dialog));
    form->addRow(tr("To shard:"), new QLabel(estimate.target, &dialog));
    form->addRow(tr("Documents:"), new QLabel(locale.toString(estimate.docs), &dialog));
    form->addRow(tr("Size:"), new QLabel(formatBytes(estimate.bytes), &dialog));
    form->addRow(tr("Expected duration:"), new QLabel(durationText(estimate), &dialog));
    form->addRow(tr("Target after the move:"),
        new QLabel(tr("%1 docs, %2%3")
                       .arg(locale.toString(estimate.targetDocsAfter), formatBytes(estimate.targetBytesAfter),
                           estimate.targetFillAfter < 0
                               ? QString()
                               : tr(" (%1% of its capacity)").arg(qRound(estimate.targetFillAfter * 100))),
            &dialog));
    auto* reasonEdit = new QLineEdit(reason, &dialog);
    reasonEdit->setPlaceholderText(tr("Why (recorded with the migration)"));
    form->addRow(tr("Reason:"), reasonEdit);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Queue migrations"));
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    reason = reasonEdit->text();
    return true;
}

// What queueing moves came to: migration ids, or what refused, or what changed under the plan,
// or the approval the change awaits.
struct MapPage::QueueOutcome {
    QStringList ids;
    QStringList errors;
    QStringList changes;
    QString awaiting;
};

void MapPage::queueMoves(const std::vector<core::PlannedMove>& moves, const QString& reason, bool fromPlan)
{
    auto store = m_connection->store();
    if (!store) {
        showMessage(tr("Not connected to a shard map"), true);
        emit moveFailed(messageText());
        return;
    }
    m_busy = true;
    updateActions();
    showMessage(tr("Queueing %n migration(s)…", nullptr, static_cast<int>(moves.size())), false);
    if (!fromPlan) {
        submitMoves(moves, reason, std::nullopt);
        return;
    }
    // A plan is checked against the map first, on the pool: what changed since it was drafted is
    // said in full, with what else changed on the way.
    runInBackground(
        m_connection->pool(), this,
        [store, plan = m_plan] {
            QueueOutcome checked;
            checked.changes = planConflicts(*store, plan, checked.errors);
            return checked;
        },
        [this, moves, reason, plan = m_plan](const QueueOutcome& checked) {
            if (checked.changes.isEmpty() && checked.errors.isEmpty())
                submitMoves(moves, reason, plan);
            else
                movesAnswered(checked, true);
        });
}

// Through the connection's one change seam, as every page changes the fleet.
void MapPage::submitMoves(
    const std::vector<core::PlannedMove>& moves, const QString& reason, const std::optional<core::Plan>& plan)
{
    // The refusal of a single space's move names the space.
    const QString space = moves.size() == 1 && !plan ? qs(moves.front().space) : QString();
    m_connection->submitChange(changeOf(moves, plan ? &*plan : nullptr), reason, this,
        [this, space, fromPlan = plan.has_value()](
            const ChangeResult& made) { movesAnswered(outcomeOf(made, space), fromPlan); });
}

MapPage::QueueOutcome MapPage::outcomeOf(const ChangeResult& made, const QString& space)
{
    QueueOutcome outcome;
    if (!made) {
        const QString why = FleetConnection::refusalText(made.error());
        outcome.errors.push_back(space.isEmpty() ? why : space + QStringLiteral(": ") + why);
    } else if (made->has_awaiting_approval()) {
        outcome.awaiting = FleetConnection::awaitingApprovalText(made->awaiting_approval());
    } else if (made->record_kind() == "migration") {
        if (auto migration = core::decodeMigration(made->record_json()))
            outcome.ids.push_back(qs(migration->id));
    } else if (auto operation = core::decodeOperation(made->record_json())) {
        for (const std::string& id : operation->migrations)
            outcome.ids.push_back(qs(id));
    }
    return outcome;
}

void MapPage::movesAnswered(const QueueOutcome& outcome, bool fromPlan)
{
    m_busy = false;
    if (!outcome.awaiting.isEmpty()) {
        // Recorded, not refused: made when a second person approves it.
        showOutcome(outcome.awaiting);
        emit approvalRequested(outcome.awaiting);
    } else if (!outcome.changes.isEmpty()) {
        const QString text = tr("The map changed since the plan was drafted; nothing was queued:\n%1")
                                 .arg(outcome.changes.join(QLatin1Char('\n')));
        showMessage(text, true);
        emit planRefused(text);
    } else if (!outcome.errors.isEmpty()) {
        showMessage(tr("Queued %1; refused: %2")
                        .arg(outcome.ids.isEmpty() ? tr("nothing") : outcome.ids.join(QStringLiteral(", ")),
                            outcome.errors.join(QStringLiteral("; "))),
            true);
        emit moveFailed(messageText());
    } else {
        showOutcome(tr("Queued %1").arg(outcome.ids.join(QStringLiteral(", "))));
        if (fromPlan) {
            m_undo->clear();
            setPlanMoves({});
            m_plan = {};
            emit planApplied(outcome.ids);
        } else {
            emit movesQueued(outcome.ids);
        }
    }
    updateActions();
}

QList<QPair<QString, QString>> MapPage::moveTargets(const QStringList& spaces) const
{
    QList<QPair<QString, QString>> targets;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QString shard = m_model->index(row, 0).data(ShardMapModel::IdRole).toString();
        targets.push_back({ shard, m_model->moveRefusal(spaces, shard) });
    }
    return targets;
}

void MapPage::moveSelectionTo()
{
    const QStringList spaces = selectedSpaces();
    if (spaces.isEmpty()) {
        showMessage(tr("Select the spaces to move first"), true);
        return;
    }
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Move %n space(s) to…", nullptr, static_cast<int>(spaces.size())));
    auto* layout = new QVBoxLayout(&dialog);
    auto* list = new QListWidget(&dialog);
    for (const auto& [shard, refusal] : moveTargets(spaces)) {
        auto* item = new QListWidgetItem(refusal.isEmpty() ? shard : tr("%1 — %2").arg(shard, refusal), list);
        item->setData(Qt::UserRole, shard);
        if (!refusal.isEmpty())
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
    }
    layout->addWidget(list);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(list, &QListWidget::itemDoubleClicked, &dialog, &QDialog::accept);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted || !list->currentItem())
        return;
    requestMoves(spaces, list->currentItem()->data(Qt::UserRole).toString());
}

// Plan mode -------------------------------------------------------------------------------------

void MapPage::setPlanMode(bool on)
{
    if (on == m_planMode)
        return;
    m_planMode = on;
    m_planToggle->setChecked(on);
    // Outside plan mode the draft stays (apply, save or discard it) but drops check the map only.
    m_model->setPlannedMoves(on ? m_plan.moves : std::vector<core::PlannedMove> {});
    updateActions();
}

void MapPage::startPlanIfEmpty()
{
    if (!m_plan.moves.empty() || !m_model->map())
        return;
    m_plan.baseRevision = m_model->map()->revision;
    m_plan.createdBy
        = (m_connection->viaController() ? m_connection->identity() : FleetConnection::localActorName()).toStdString();
    m_plan.createdUnixMs = QDateTime::currentMSecsSinceEpoch();
}

void MapPage::setPlanMoves(const std::vector<core::PlannedMove>& moves)
{
    m_plan.moves = moves;
    m_model->setPlannedMoves(m_planMode ? moves : std::vector<core::PlannedMove> {});
    updateActions();
}

bool MapPage::savePlan(const QString& path)
{
    QSaveFile file(path);
    const std::string text = m_plan.encode();
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0
        || !file.commit()) {
        showMessage(tr("Could not save the plan to %1: %2").arg(path, file.errorString()), true);
        return false;
    }
    showOutcome(tr("Plan saved to %1").arg(path));
    return true;
}

void MapPage::editPlan(const core::Plan& plan)
{
    m_undo->clear();
    m_plan = plan;
    setPlanMode(true);
    setPlanMoves(m_plan.moves);
    showMessage(
        tr("Plan with %n move(s) from the wizard: edit it, then apply", nullptr, static_cast<int>(m_plan.moves.size())),
        false);
    updateActions();
}

void MapPage::showLaneMenu(const QPoint& viewportPoint)
{
    const QString shard = m_view->laneAt(viewportPoint);
    if (shard.isEmpty())
        return;
    const std::unique_ptr<QMenu> menu(laneMenu(shard, this));
    menu->exec(m_view->viewport()->mapToGlobal(viewportPoint));
}

QMenu* MapPage::laneMenu(const QString& shard, QWidget* parent)
{
    auto* menu = new QMenu(parent);
    // A disabled entry says why in its tooltip.
    menu->setToolTipsVisible(true);
    const auto offer = [&](const QString& text, core::Scenario scenario) {
        QAction* action = menu->addAction(
            text, this, [this, scenario, shard] { emit wizardRequested(static_cast<int>(scenario), shard); });
        enableChange(action, m_connection);
    };
    offer(tr("Drain %1…").arg(shard), core::Scenario::Drain);
    offer(tr("Split %1…").arg(shard), core::Scenario::Split);
    offer(tr("Merge %1 into…").arg(shard), core::Scenario::Merge);
    return menu;
}

bool MapPage::openPlan(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        showMessage(tr("Could not open %1: %2").arg(path, file.errorString()), true);
        return false;
    }
    auto plan = core::Plan::decode(file.readAll().toStdString());
    if (!plan) {
        showMessage(tr("%1 is not a plan: %2").arg(path, QString::fromStdString(plan.error().message)), true);
        return false;
    }
    m_undo->clear();
    m_plan = *plan;
    setPlanMode(true);
    setPlanMoves(m_plan.moves);
    const MapPtr map = m_model->map();
    QStringList changes;
    if (map) {
        for (const auto& conflict : m_plan.checkAgainst(*map))
            changes.push_back(QString::fromStdString(conflict.message));
    }
    if (!changes.isEmpty())
        showMessage(tr("The map changed since this plan was drafted (revision %1):\n%2")
                        .arg(m_plan.baseRevision)
                        .arg(changes.join(QLatin1Char('\n'))),
            true);
    else
        showMessage(tr("Plan with %n move(s) opened", nullptr, static_cast<int>(m_plan.moves.size())), false);
    return true;
}

void MapPage::discardPlan()
{
    m_undo->clear();
    m_plan = {};
    setPlanMoves({});
    showMessage({}, false);
}

void MapPage::applyPlan()
{
    if (m_plan.moves.empty()) {
        showMessage(tr("The plan has no moves"), true);
        return;
    }
    queueMoves(m_plan.moves,
        QString::fromStdString(m_plan.reason).isEmpty()
            ? tr("plan drafted by %1").arg(QString::fromStdString(m_plan.createdBy))
            : QString::fromStdString(m_plan.reason),
        true);
}

} // namespace shardmap::widgets
