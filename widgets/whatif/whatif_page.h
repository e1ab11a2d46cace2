#pragma once

// The what-if page: the fleet's spaces laid out by every placement strategy, compared.

#include "core/plan/simulator.h"
#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QWidget>
#include <memory>

class QDoubleSpinBox;
class QPushButton;
class QSpinBox;
class QTableView;

namespace shardmap::widgets {

class ComparisonChart;
class InlineMessage;
class SimulationModel;

// The what-if simulator (issue 12, seed 000's argument on the administrator's own data): the
// fleet's spaces, optionally grown, laid out by every placement strategy side by side (the map
// as it is, the planner, load-aware allocation, jump, rendezvous, mod-N, bounded-load consistent
// hashing), with how even each keeps the shards and how much data moves when shards are added
// or removed. The figures are read and the simulation runs on the connection's pool.
class WhatIfPage : public QWidget {
    Q_OBJECT
public:
    explicit WhatIfPage(FleetConnection* connection, QWidget* parent = nullptr);
    ~WhatIfPage() override;

    SimulationModel* model() const { return m_model; }
    ComparisonChart* evennessChart() const { return m_evenness; }
    ComparisonChart* movedChart() const { return m_moved; }
    bool running() const { return m_running; }
    QString messageText() const;

    void setGrowth(const core::Growth& growth);
    void setShardChanges(int add, int remove);

public slots:
    // Reads the fleet's figures (again) and simulates; finished follows.
    void run();

signals:
    void finished();

private:
    QWidget* buildControls();
    core::SimulationOptions options() const;
    void show(core::Result<core::SimulationResult> result);

    FleetConnection* m_connection;
    SimulationModel* m_model;
    Generation m_generation;
    bool m_running = false;
    QDoubleSpinBox* m_growAll = nullptr;
    QSpinBox* m_topN = nullptr;
    QDoubleSpinBox* m_topFactor = nullptr;
    QSpinBox* m_newSpaces = nullptr;
    QSpinBox* m_add = nullptr;
    QSpinBox* m_remove = nullptr;
    QPushButton* m_run = nullptr;
    InlineMessage* m_message = nullptr;
    QTableView* m_table = nullptr;
    ComparisonChart* m_evenness = nullptr;
    ComparisonChart* m_moved = nullptr;
};

} // namespace shardmap::widgets
