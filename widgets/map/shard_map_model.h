#pragma once

// The shard map's model: shards as lanes, their spaces as tiles, with live figures and the move rules.

#include "core/plan/move_rules.h"
#include "widgets/session/fleet_connection.h"
#include "widgets/session/sample_rows.h"

#include <QAbstractItemModel>
#include <QElapsedTimer>
#include <QHash>
#include <QStringList>
#include <QTimer>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace shardmap::widgets {

// The shard map as lanes and tiles: top-level rows are shards (lanes), ordered by node so that
// a node's shards sit together; their children are the spaces the shard owns. Membership comes
// from the map (setMap inserts, removes and updates rows, never resets), figures from node
// samples (dataChanged per lane, one merged range per sample). Lanes carry their fill now and
// projected after the migrations queued in the map and the moves of a draft plan.
//
// Drag and drop: spaces are dragged as a list of ids (kMimeType); a lane (or a space in it)
// takes them when core::MoveRules allows every one of them; dropRefusal() says why not.
// moveRefusal() is the one place the console asks the rules about a move. A drop is checked
// once, as it is taken (takeDrop, dropMimeData), and never writes the store: it emits
// movesRequested with the moves the rules allowed, and the page confirms and queues them.
class ShardMapModel : public QAbstractItemModel {
    Q_OBJECT
public:
    static constexpr const char* kMimeType = "application/x-shardmap-spaces";
    // Projected lane loads follow node samples at most this often.
    static constexpr int kProjectionDelayMs = 500;

    enum class SizeBy { Docs, Bytes };
    Q_ENUM(SizeBy)

    enum Role {
        // Lane or Space (ItemKind).
        KindRole = Qt::UserRole,
        // The shard or space id.
        IdRole,
        // Lanes: the node of the shard; spaces: the node of their shard.
        NodeRole,
        // Lanes: "active", "draining" ...; spaces: the lane's.
        StateRole,
        // Lanes: the state as the console names it, translated ("aktiv", "wird geleert").
        StateTextRole,
        // qulonglong; spaces: 0 while no sample carried their figures.
        DocsRole,
        BytesRole,
        // Docs or bytes (whichever sizeBy() says); what tiles are sized by.
        SizeRole,
        // Spaces: queries + writes per second (tiles are coloured by it); lanes: the shard's.
        LoadRole,
        // Spaces: whether a sample carried their figures yet.
        FiguresKnownRole,
        // Lanes: fill against capacity (0..1, by the sizeBy measure), -1 without capacity.
        FillRole,
        ProjectedFillRole,
        // Lanes: the projected docs and bytes after queued and planned moves (qulonglong).
        ProjectedDocsRole,
        ProjectedBytesRole,
        // Lanes: capacity in the sizeBy measure (0: unlimited).
        CapacityRole,
        // Spaces: the migration's target while migrating (empty otherwise); the pin.
        MigratingToRole,
        PinRole,
        // Spaces: the target of the draft plan's move of the space (empty: none).
        PlannedToRole,
        // Lanes: int core::CopyHealth from the shard's copies in the map (issue 30); -1 for a shard
        // kept as one copy (nothing to judge beyond its node).
        CopyHealthRole,
        // Lanes: "1 of 2 copies in sync (yellow)", empty where CopyHealthRole is -1.
        CopiesTextRole,
    };
    Q_ENUM(Role)

    enum class ItemKind { Lane, Space };
    Q_ENUM(ItemKind)

    explicit ShardMapModel(QObject* parent = nullptr);
    ~ShardMapModel() override;

    void setMap(const MapPtr& map);
    MapPtr map() const { return m_map; }
    // Figures of the node's shards and (when carried) spaces.
    void applySample(const QString& nodeId, const SamplePtr& sample);
    // Projects the lanes' loads now instead of at the end of the batching delay.
    void flushProjections();

    void setSizeBy(SizeBy sizeBy);
    SizeBy sizeBy() const { return m_sizeBy; }
    // The moves of a draft plan: projected loads and drop checks count them.
    void setPlannedMoves(const std::vector<core::PlannedMove>& moves);
    const std::vector<core::PlannedMove>& plannedMoves() const { return m_planned; }

    QModelIndex laneIndex(const QString& shardId) const;
    QModelIndex spaceIndex(const QString& spaceId) const;
    // The lane of an index (itself for lanes), invalid for an invalid index.
    QModelIndex laneOf(const QModelIndex& index) const;
    // The busiest space's LoadRole over the whole map (0: none has figures), what tiles are
    // coloured against. Rescans only the lanes that changed since it was last asked.
    double maxSpaceLoad() const;

    // The rules on the current map, figures and draft (rebuilt lazily after changes).
    const core::MoveRules& rules() const;
    // For tests: projections made, and how many of them asked the rules (the others took each
    // lane's own figures: nothing planned or in flight).
    std::uint64_t projections() const { return m_projections; }
    std::uint64_t projectionsWithRules() const { return m_projectionsWithRules; }
    // Why spaces may not move to shard (empty: they may), translated.
    QString moveRefusal(const QStringList& spaces, const QString& shard) const;
    // Why the mime data may not be dropped on target (a lane or a space in it); empty: it may.
    QString dropRefusal(const QMimeData* data, const QModelIndex& target) const;
    // Takes a drop on target: when the rules allow it, emits movesRequested and returns empty;
    // otherwise returns why not (dropRefusal) and requests nothing.
    QString takeDrop(const QMimeData* data, const QModelIndex& target);
    static QStringList spacesOf(const QMimeData* data);
    QString refusalText(const core::MoveVerdict& verdict, const QString& space, const QString& shard) const;
    QString migratingText(const QString& space) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool canDropMimeData(
        const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) const override;
    bool dropMimeData(
        const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) override;
    Qt::DropActions supportedDropActions() const override;
    Qt::DropActions supportedDragActions() const override;

signals:
    // A drop the rules allowed (checked as it was taken): the page confirms and queues it.
    void movesRequested(const QStringList& spaces, const QString& targetShard);

private:
    // The internal id of a lane's index (a space's is the address of its Lane).
    static constexpr quintptr kLaneId = 0;
    // What a sample says about a space or a shard.
    struct Figures {
        std::uint64_t docs = 0;
        std::uint64_t bytes = 0;
        double queries = 0;
        double writes = 0;

        bool operator==(const Figures&) const = default;
    };
    // A tile: no record (the shown map has it) and no hashed copies of its id, so that a million
    // of them stay small and quick to build.
    struct Space {
        std::string id;
        bool known = false;
        Figures figures;
    };
    struct Lane {
        QString id;
        QString node;
        core::ShardRecord record;
        bool sampled = false;
        Figures figures;
        // The figures changed since the last projection announced the lane.
        bool figuresChanged = false;
        core::ShardFigures projected;
        // In id order, as the map lists them.
        std::vector<Space> spaces;
        // How many of spaces have figures.
        std::size_t known = 0;
        // The busiest space's queries + writes per second, recomputed when asked after the
        // lane's spaces or their figures changed.
        mutable double maxLoad = 0;
        mutable bool maxLoadStale = true;
    };
    // The spaces on each shard (owner or migration target): the snapshot's index, or one pass
    // over a snapshot that has none.
    class SpacesOf {
    public:
        explicit SpacesOf(const core::MapSnapshot& map);
        const std::vector<const core::SpaceRecord*>& operator()(const std::string& shardId) const;

    private:
        const core::MapIndex* m_index;
        std::unordered_map<std::string, std::vector<const core::SpaceRecord*>> m_grouped;
    };

    // The spaces shardId's lane shows (those of spacesOf without an old shard's rollback copies);
    // buffer holds them when some are left out.
    static const std::vector<const core::SpaceRecord*>& tilesOf(const core::MapSnapshot& map,
        const std::string& shardId, const SpacesOf& spacesOf, std::vector<const core::SpaceRecord*>& buffer);
    static bool laneBefore(const Lane& lane, const QString& node, const QString& id);
    Lane* laneAt(const QModelIndex& index) const;
    int laneRow(const QString& shardId) const;
    int laneRow(const std::string& shardId) const;
    void removeLanes(const MapPtr& map);
    // The ids of the lanes it inserted.
    std::vector<QString> insertLanes(const MapPtr& map);
    void removeSpaces(int laneRow, const core::MapSnapshot& map, const std::vector<const core::SpaceRecord*>& owned);
    void addSpaces(int laneRow, const core::MapSnapshot& map, const std::vector<const core::SpaceRecord*>& owned);
    void spacesChanged(const core::MapChanges* changes, const std::vector<int>& syncedRows);
    QModelIndex dropTarget(int row, const QModelIndex& parent) const;
    void reindexLanes();
    // The row of a space in its lane, -1 if it is not there.
    static int childRow(const Lane& lane, const std::string& spaceId);
    void applyShardFigures(int row, const core::ShardMetricsValue& figures);
    void applySpaceFigures(int row, Lane& lane, const std::vector<core::SpaceMetricsValue>& values);
    void invalidateRules();
    void projectSoon();
    void updateProjections();
    QVariant laneData(const Lane& lane, int role) const;
    QVariant spaceData(const Lane& lane, const Space& space, int role) const;
    std::uint64_t measure(const core::ShardFigures& load) const;

    MapPtr m_map;
    std::vector<std::unique_ptr<Lane>> m_lanes;
    // Rows by shard id, keyed by the std::string the maps and samples carry (no QString made per
    // lookup: samples of 700 shards each, forty times a second).
    std::unordered_map<std::string, int> m_laneRow;
    // Lane rows of each node's last sample's shards, valid while m_lanesGeneration stands.
    QHash<QString, SampleRows<int>> m_sampleRows;
    std::uint64_t m_lanesGeneration = 0;
    mutable double m_maxSpaceLoad = 0;
    mutable bool m_maxSpaceLoadStale = true;
    // Figures of spaces that left a lane during setMap, for the lane they enter.
    std::unordered_map<std::string, Figures> m_departed;
    SizeBy m_sizeBy = SizeBy::Docs;
    std::vector<core::PlannedMove> m_planned;
    mutable std::optional<core::MoveRules> m_rules;
    std::uint64_t m_projections = 0;
    std::uint64_t m_projectionsWithRules = 0;
    QTimer m_projectionTimer;
    QElapsedTimer m_lastProjection;
};

} // namespace shardmap::widgets
