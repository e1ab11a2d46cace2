#pragma once

// The shard map page: moves of spaces by drag and drop or "Move to…", confirmed and queued, or drafted
// as a plan.

#include "core/map/map_editor.h"
#include "core/plan/plan.h"
#include "widgets/map/shard_map_model.h"
#include "widgets/session/fleet_connection.h"

#include <QSet>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QTimer;
class QToolBar;
class QToolButton;
class QUndoStack;

namespace shardmap::widgets {

class InlineMessage;
class MapLegend;

class ShardMapView;

// What a move of spaces to a shard would take, for the confirmation.
struct MoveEstimate {
    QStringList spaces;
    // The shards they leave (where each is now, or where the draft plan puts it).
    QStringList sources;
    QString target;
    qulonglong docs = 0;
    qulonglong bytes = 0;
    // The planner's estimate of these moves (core::estimateMoves), the rate per migration it
    // used and what that rate is ("throttle", "measured" or "assumed").
    double seconds = 0;
    double docsPerSecond = 0;
    QString rateSource;
    // The target after the queued moves and these.
    qulonglong targetDocsAfter = 0;
    qulonglong targetBytesAfter = 0;
    // Of the target's capacity (docs, else bytes); -1 without a capacity.
    double targetFillAfter = -1;
};

// The shard map page: shards as lanes grouped by node, spaces as tiles (ShardMapView), moves
// by drag and drop or "Move to…", each confirmed with an estimate and queued as migrations
// through the connection's one change seam (FleetConnection::submitChange). In plan mode moves
// are drafted instead (undoable, saved as JSON) and "Apply" queues them all, unless the map
// changed under them in a way they depend on; then it says what changed and queues nothing.
// Refusals and errors show inline.
class MapPage : public QWidget {
    Q_OBJECT
public:
    using Confirmer = std::function<bool(const MoveEstimate& estimate, QString& reason)>;

    explicit MapPage(FleetConnection* connection, QWidget* parent = nullptr);
    ~MapPage() override;

    ShardMapModel* model() const { return m_model; }
    ShardMapView* view() const { return m_view; }
    MapLegend* legend() const { return m_legend; }
    QUndoStack* undoStack() const { return m_undo; }

    // Replaces the confirmation dialog (scripted use, tests): return true to go ahead, and
    // optionally set the reason recorded with the migrations.
    void setConfirmer(Confirmer confirmer);
    MoveEstimate estimate(const QStringList& spaces, const QString& shard) const;
    // Moves spaces to shard: refused (false, the reason inline) when the rules say no; in plan
    // mode added to the draft (undoable); otherwise, after the confirmation when confirm is
    // true, queued in the store off the UI thread (movesQueued or moveFailed follow). reason is
    // recorded with the migrations.
    bool requestMoves(const QStringList& spaces, const QString& shard, const QString& reason = {}, bool confirm = true);
    // The confirmation's expected duration, in words.
    static QString durationText(const MoveEstimate& estimate);
    QStringList selectedSpaces() const;
    // Opens the "Move to…" dialog for the selected spaces.
    void moveSelectionTo();
    // Per shard: why the spaces may not go there (empty: they may).
    QList<QPair<QString, QString>> moveTargets(const QStringList& spaces) const;
    bool findSpace(const QString& spaceId);
    // The context menu of a shard's lane, owned by parent: the wizards that change the fleet,
    // disabled with the reason on a read-only connection.
    QMenu* laneMenu(const QString& shard, QWidget* parent);
    void setSizeBy(ShardMapModel::SizeBy sizeBy);

    void setPlanMode(bool on);
    // Opens a plan made elsewhere (a wizard's) in plan mode, to edit before applying; what it
    // is (a drain, a rebalance ...) is kept when it is applied.
    void editPlan(const core::Plan& plan);
    bool planMode() const { return m_planMode; }
    const core::Plan& plan() const { return m_plan; }
    bool savePlan(const QString& path);
    bool openPlan(const QString& path);
    void discardPlan();
    // Queues every move of the draft (planApplied), or says what changed (planRefused).
    void applyPlan();

    // The inline message (refusal, error or outcome); empty when none. An outcome ("Queued …")
    // goes after kOutcomeShownMs or at the next move, drag or find, whichever comes first.
    QString messageText() const;
    static constexpr int kOutcomeShownMs = 8000;

signals:
    void movesQueued(const QStringList& migrationIds);
    // The moves (or the plan) were recorded as awaiting a second person's approval (the text).
    void approvalRequested(const QString& text);
    void moveFailed(const QString& message);
    void planApplied(const QStringList& migrationIds);
    void planRefused(const QString& whatChanged);
    // A wizard asked for from the toolbar or a lane's context menu (int(core::Scenario)).
    void wizardRequested(int scenario, const QString& subject);

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    friend class PlanMoveCommand;

    void buildToolBar();
    void addViewControls(QToolBar* bar);
    void addPlanActions(QToolBar* bar);
    void addWizardsMenu(QToolBar* bar);
    void showLaneMenu(const QPoint& viewportPoint);
    void mapChanged(const MapPtr& map);
    void syncSpaceDetail();
    void releaseSpaceDetail();
    void showMessage(const QString& text, bool error);
    // A success that is news only for a while: hidden after kOutcomeShownMs.
    void showOutcome(const QString& text);
    void clearOutcome();
    struct QueueOutcome;
    // Whether the moves were checked against the rules already (by the model, taking a drop).
    enum class RulesChecked { No, AtDrop };

    bool startMoves(
        const QStringList& spaces, const QString& shard, const QString& reason, bool confirm, RulesChecked checked);
    void draftMoves(const std::vector<core::PlannedMove>& moves, const QString& shard);
    bool confirmMoves(const MoveEstimate& estimate, QString& reason);
    void queueMoves(const std::vector<core::PlannedMove>& moves, const QString& reason, bool fromPlan);
    void submitMoves(
        const std::vector<core::PlannedMove>& moves, const QString& reason, const std::optional<core::Plan>& plan);
    static QueueOutcome outcomeOf(const ChangeResult& made, const QString& space);
    void movesAnswered(const QueueOutcome& outcome, bool fromPlan);
    void setPlanMoves(const std::vector<core::PlannedMove>& moves);
    void startPlanIfEmpty();
    void updateActions();

    FleetConnection* m_connection;
    ShardMapModel* m_model;
    ShardMapView* m_view;
    QUndoStack* m_undo;
    InlineMessage* m_message = nullptr;
    MapLegend* m_legend = nullptr;
    QTimer* m_outcomeTimer = nullptr;
    QLineEdit* m_find = nullptr;
    QComboBox* m_sizeBy = nullptr;
    QAction* m_moveTo = nullptr;
    QAction* m_planToggle = nullptr;
    QAction* m_apply = nullptr;
    QAction* m_save = nullptr;
    QAction* m_discard = nullptr;
    QToolButton* m_wizards = nullptr;
    QList<QAction*> m_wizardActions;
    Confirmer m_confirmer;
    bool m_planMode = false;
    core::Plan m_plan;
    QSet<QString> m_detailNodes;
    bool m_busy = false;
};

} // namespace shardmap::widgets
