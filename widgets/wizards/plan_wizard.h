#pragma once

// The planning wizard: one guided flow per planner scenario, from its parameters to a queued operation.

#include "core/plan/scenario.h"
#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QWizard>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace shardmap::widgets {

class InlineMessage;
class LoadBarsChart;
class PlanMovesModel;

// One guided flow per planner scenario (rebalance, add shards, drain, retire a node, split,
// merge, isolate; issue 12): choose the scenario and its parameters; preview the plan (bars of
// every shard before and after, the moves with their reasons, bytes moved, the estimated
// duration, warnings), where the band and the move budget re-plan live; optionally edit it in
// plan mode; confirm with a reason, and the plan is queued as one operation.
//
// The fleet's figures are read once (store and nodes) and every plan is computed on the
// connection's pool; answers to older parameters are dropped. The UI thread only shows results.
class PlanWizard : public QWizard {
    Q_OBJECT
public:
    enum PageId { ScenarioPageId, PreviewPageId, ConfirmPageId };

    PlanWizard(
        FleetConnection* connection, core::Scenario scenario, const QString& subject = {}, QWidget* parent = nullptr);
    ~PlanWizard() override;

    // What a rate per migration is based on (PlanSummary::rateSource), in words.
    static QString rateSourceText(const std::string& source);
    // The same for the summary's estimate, with how many migrations were measured: "measured: the
    // median of 3 migrations", "assumed until 3 migrations that copied at least 10,000 docs are
    // measured, 1 so far".
    static QString rateBasisText(const core::PlanSummary& summary);

    // Every scenario with its menu text ("Rebalance…"), in menu order.
    static QList<QPair<core::Scenario, QString>> entries();

    // The parameters, as the pages show them (also for scripted use and tests).
    core::Scenario scenario() const;
    void setScenario(core::Scenario scenario);
    core::ScenarioRequest request() const;
    // Change index settings: the template to build with ("NAME:VERSION", one the map has).
    void setTemplate(const QString& label);
    void setSubject(const QString& subject);
    void setNewShard(const QString& id, const QString& node = {});
    void setInto(const QString& shard);
    void setBand(double band);
    void setMaxMoves(int moves);
    void setReason(const QString& reason);

    // The newest plan (nullopt until one arrived or after an error) and why the last attempt
    // failed; planning() while figures are read or a plan is computed.
    const std::optional<core::PlanResult>& result() const { return m_result; }
    QString errorText() const { return m_error; }
    bool planning() const { return m_gathering || m_planning; }
    PlanMovesModel* movesModel() const { return m_moves; }
    LoadBarsChart* chart() const { return m_chart; }
    QString summaryText() const;
    std::map<std::string, std::vector<std::string>> targetNodes() const;
    QString warningsText() const;

    // Plans again with the current parameters (reading the figures first if there are none).
    void replan();
    // Reads the fleet's figures again, then plans.
    void refreshFigures();
    // Queues the current plan with the reason (what Finish does); operationQueued or
    // applyFailed follow.
    void applyPlan();

    // Cancel is ignored while the plan is being queued (the answer would be lost).
    void reject() override;

signals:
    void planReady();
    void operationQueued(const QString& operationId, const QStringList& migrationIds);
    void applyFailed(const QString& message);
    // The plan was recorded as awaiting a second person's approval (its id, and the sentence
    // saying so); nothing is queued until someone else approves it. The wizard closes after it.
    void approvalRequested(const QString& approvalId, const QString& text);
    // "Edit in plan mode": the receiver takes result()->plan.
    void editInPlanModeRequested();

private:
    friend class ScenarioPage;
    friend class PreviewPage;
    friend class ConfirmPage;

    QWidget* buildScenarioFields();
    QWidget* buildPreview();
    QHBoxLayout* buildPlanKnobs(QWidget* box);
    void replanWhenKnobsChange();
    void fillChoices();
    void fillTemplates(const MapPtr& map);
    void reindexRequest(core::ScenarioRequest& request) const;
    void scenarioChanged();
    void clearHiddenFields(core::Scenario scenario);
    void planArrived(std::uint64_t ticket, core::Result<core::PlanResult> result);
    void planApplied(ChangeResult made);
    void showResult();
    core::PlannerOptions plannerOptions() const;

    FleetConnection* m_connection;
    std::shared_ptr<const core::PlannerInput> m_input;
    std::optional<core::PlanResult> m_result;
    // The plan the confirmation page shows and Queue sends.
    std::optional<core::PlanResult> m_confirmed;
    bool m_replanPending = false;
    QStringList m_shownShards;
    // Whether the subject list offers nodes (retire a node) rather than shards.
    bool m_subjectIsNode = false;
    QStringList m_shownNodes;
    QString m_error;
    Generation m_generation;
    bool m_gathering = false;
    bool m_planning = false;
    bool m_applying = false;
    bool m_applied = false;

    QComboBox* m_scenario = nullptr;
    QComboBox* m_subject = nullptr;
    QLabel* m_subjectLabel = nullptr;
    // One field per thing named: the space to isolate, the shards to fill.
    QLineEdit* m_space = nullptr;
    QLineEdit* m_newShards = nullptr;
    // Change index settings (reindex): which shards, and the template to build them with.
    QLineEdit* m_reindexShards = nullptr;
    QComboBox* m_template = nullptr;
    QLineEdit* m_newShard = nullptr;
    QComboBox* m_node = nullptr;
    QComboBox* m_into = nullptr;
    QLabel* m_scenarioHelp = nullptr;
    QDoubleSpinBox* m_band = nullptr;
    QSpinBox* m_maxMoves = nullptr;
    LoadBarsChart* m_chart = nullptr;
    PlanMovesModel* m_moves = nullptr;
    QTableView* m_movesView = nullptr;
    QLabel* m_summary = nullptr;
    InlineMessage* m_warnings = nullptr;
    QPushButton* m_editInPlanMode = nullptr;
    QLineEdit* m_reason = nullptr;
    QLabel* m_confirmSummary = nullptr;
    InlineMessage* m_applyMessage = nullptr;
};

} // namespace shardmap::widgets
