<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>shardmap::widgets::AlertsModel</name>
    <message numerus="yes">
        <source>No shardmapd holds the executor lease: %n open migration(s) wait until one does</source>
        <translation>
            <numerusform>No shardmapd holds the executor lease: %n open migration waits until one does</numerusform>
            <numerusform>No shardmapd holds the executor lease: %n open migrations wait until one does</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::AlertsPage</name>
    <message numerus="yes">
        <source>%n alert(s) firing, all acknowledged.</source>
        <translation>
            <numerusform>%n alert firing, all acknowledged.</numerusform>
            <numerusform>%n alerts firing, all acknowledged.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n alert(s) firing, </source>
        <translation>
            <numerusform>%n alert firing, </numerusform>
            <numerusform>%n alerts firing, </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not acknowledged.</source>
        <translation>
            <numerusform>%n not acknowledged.</numerusform>
            <numerusform>%n not acknowledged.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::AuditModel</name>
    <message numerus="yes">
        <source>%n record(s)</source>
        <translation>
            <numerusform>%n record</numerusform>
            <numerusform>%n records</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::AuditPage</name>
    <message numerus="yes">
        <source>Changes from revision %1 to %2 (%n commit(s))</source>
        <translation>
            <numerusform>Changes from revision %1 to %2 (%n commit)</numerusform>
            <numerusform>Changes from revision %1 to %2 (%n commits)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::CopiesPanel</name>
    <message numerus="yes">
        <source>Node %1 holds %n copy(s).</source>
        <translation>
            <numerusform>Node %1 holds %n copy.</numerusform>
            <numerusform>Node %1 holds %n copies.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::DemoFleet</name>
    <message numerus="yes">
        <source>Demo: starting %n shard node(s)…</source>
        <translation>
            <numerusform>Demo: starting %n shard node…</numerusform>
            <numerusform>Demo: starting %n shard nodes…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::Format</name>
    <message numerus="yes">
        <source>%n s</source>
        <translation>
            <numerusform>%n s</numerusform>
            <numerusform>%n s</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MainWindow</name>
    <message numerus="yes">
        <source>Alerts, %n firing</source>
        <translation>
            <numerusform>Alerts, %n firing</numerusform>
            <numerusform>Alerts, %n firing</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not acknowledged</source>
        <translation>
            <numerusform>%n not acknowledged</numerusform>
            <numerusform>%n not acknowledged</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n alerts fired</source>
        <translation>
            <numerusform>%n alert fired</numerusform>
            <numerusform>%n alerts fired</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Approvals, %n pending</source>
        <translation>
            <numerusform>Approvals, %n pending</numerusform>
            <numerusform>Approvals, %n pending</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MapPage</name>
    <message numerus="yes">
        <source>Move %n space(s) to %1</source>
        <translation>
            <numerusform>Move %n space to %1</numerusform>
            <numerusform>Move %n spaces to %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Queueing %n migration(s)…</source>
        <translation>
            <numerusform>Queueing %n migration…</numerusform>
            <numerusform>Queueing %n migrations…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Move %n space(s) to…</source>
        <translation>
            <numerusform>Move %n space to…</numerusform>
            <numerusform>Move %n spaces to…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Plan with %n move(s) from the wizard: edit it, then apply</source>
        <translation>
            <numerusform>Plan with %n move from the wizard: edit it, then apply</numerusform>
            <numerusform>Plan with %n moves from the wizard: edit it, then apply</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Plan with %n move(s) opened</source>
        <translation>
            <numerusform>Plan with %n move opened</numerusform>
            <numerusform>Plan with %n moves opened</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %1 at %2 docs/s, the median of the last %n unthrottled migration(s)</source>
        <translation type="vanished">
            <numerusform>about %1 at %2 docs/s, the median of the last %n unthrottled migration</numerusform>
            <numerusform>about %1 at %2 docs/s, the median of the last %n unthrottled migrations</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MigrationDetailDialog</name>
    <message numerus="yes">
        <source>%1 at %2 after %n comparison(s), %3 documents repaired</source>
        <translation>
            <numerusform>%1 at %2 after %n comparison, %3 documents repaired</numerusform>
            <numerusform>%1 at %2 after %n comparisons, %3 documents repaired</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n time(s), the last at %2)</source>
        <translation>
            <numerusform>%1 (%n time, the last at %2)</numerusform>
            <numerusform>%1 (%n times, the last at %2)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MigrationsPage</name>
    <message numerus="yes">
        <source>%n selected migration(s)</source>
        <translation>
            <numerusform>%n selected migration</numerusform>
            <numerusform>%n selected migrations</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::OverviewPage</name>
    <message numerus="yes">
        <source>%n unreachable</source>
        <translation>
            <numerusform>%n unreachable</numerusform>
            <numerusform>%n unreachable</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n queued</source>
        <translation>
            <numerusform>%n queued</numerusform>
            <numerusform>%n queued</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n open, </source>
        <translation>
            <numerusform>%n open, </numerusform>
            <numerusform>%n open, </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n replica(s) alive: </source>
        <translation>
            <numerusform>%n replica alive: </numerusform>
            <numerusform>%n replicas alive: </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n migration(s) wait for an executor</source>
        <translation>
            <numerusform>%n migration waits for an executor</numerusform>
            <numerusform>%n migrations wait for an executor</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n under-replicated (yellow)</source>
        <translation>
            <numerusform>%n under-replicated (yellow)</numerusform>
            <numerusform>%n under-replicated (yellow)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n without a serving copy (red)</source>
        <translation>
            <numerusform>%n without a serving copy (red)</numerusform>
            <numerusform>%n without a serving copy (red)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::PlanWizard</name>
    <message numerus="yes">
        <source>%n move(s): %1 and %2 docs to copy; about %3 at %4 docs/s per migration (%5).</source>
        <translation>
            <numerusform>%n move: %1 and %2 docs to copy; about %3 at %4 docs/s per migration (%5).</numerusform>
            <numerusform>%n moves: %1 and %2 docs to copy; about %3 at %4 docs/s per migration (%5).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>measured: the median of %n migration(s)</source>
        <translation>
            <numerusform>measured: the median of %n migration</numerusform>
            <numerusform>measured: the median of %n migrations</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ReportDocument</name>
    <message numerus="yes">
        <source>%n chosen migration(s)</source>
        <translation>
            <numerusform>%n chosen migration</numerusform>
            <numerusform>%n chosen migrations</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>State: %1. Requested by %2 at %3; reason: %4. %n migration(s).</source>
        <translation>
            <numerusform>State: %1. Requested by %2 at %3; reason: %4. %n migration.</numerusform>
            <numerusform>State: %1. Requested by %2 at %3; reason: %4. %n migrations.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>and %n more</source>
        <translation>
            <numerusform>and %n more</numerusform>
            <numerusform>and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more event(s) are in the JSON report.</source>
        <translation>
            <numerusform>%n more event is in the JSON report.</numerusform>
            <numerusform>%n more events are in the JSON report.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n time(s), the last at %2)</source>
        <translation>
            <numerusform>%1 (%n time, the last at %2)</numerusform>
            <numerusform>%1 (%n times, the last at %2)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ReportExportDialog</name>
    <message numerus="yes">
        <source>%1: %n migration(s), as of %2.</source>
        <translation>
            <numerusform>%1: %n migration, as of %2.</numerusform>
            <numerusform>%1: %n migrations, as of %2.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Wrote the report of %n migration(s) to %1.</source>
        <translation>
            <numerusform>Wrote the report of %n migration to %1.</numerusform>
            <numerusform>Wrote the report of %n migrations to %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ReportPreviewDialog</name>
    <message numerus="yes">
        <source>Laying out the report of %n migration(s)…</source>
        <translation>
            <numerusform>Laying out the report of %n migration…</numerusform>
            <numerusform>Laying out the report of %n migrations…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n page(s).</source>
        <translation>
            <numerusform>%n page.</numerusform>
            <numerusform>%n pages.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Sent %n page(s) to the printer.</source>
        <translation>
            <numerusform>Sent %n page to the printer.</numerusform>
            <numerusform>Sent %n pages to the printer.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ShardMapView</name>
    <message numerus="yes">
        <source>+%n small spaces</source>
        <translation>
            <numerusform>+%n small space</numerusform>
            <numerusform>+%n small spaces</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Shard map: %n shard(s)</source>
        <translation>
            <numerusform>Shard map: %n shard</numerusform>
            <numerusform>Shard map: %n shards</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::SimulationModel</name>
    <message numerus="yes">
        <source>Moved adding %n shard(s)</source>
        <translation>
            <numerusform>Moved adding %n shard</numerusform>
            <numerusform>Moved adding %n shards</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Moved removing %n shard(s)</source>
        <translation>
            <numerusform>Moved removing %n shard</numerusform>
            <numerusform>Moved removing %n shards</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::WhatIfPage</name>
    <message numerus="yes">
        <source>%n space(s), %1 on %2 shard(s); adding shards moves at least %3 for an even share. Dynamic lookup (current, planner, load-aware) moves only what has to move; the hashes move every space whose computed shard changes.</source>
        <translation>
            <numerusform>%n space, %1 on %2 shard(s); adding shards moves at least %3 for an even share. Dynamic lookup (current, planner, load-aware) moves only what has to move; the hashes move every space whose computed shard changes.</numerusform>
            <numerusform>%n spaces, %1 on %2 shard(s); adding shards moves at least %3 for an even share. Dynamic lookup (current, planner, load-aware) moves only what has to move; the hashes move every space whose computed shard changes.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>adding %n shard(s)</source>
        <translation>
            <numerusform>adding %n shard</numerusform>
            <numerusform>adding %n shards</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>removing %n shard(s)</source>
        <translation>
            <numerusform>removing %n shard</numerusform>
            <numerusform>removing %n shards</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::PlanNotes</name>
    <message numerus="yes">
        <source>%n shard(s) remain outside the band after the plan: %1</source>
        <translation>
            <numerusform>%n shard remains outside the band after the plan: %1</numerusform>
            <numerusform>%n shards remain outside the band after the plan: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 and %n more</source>
        <translation>
            <numerusform>%1 and %n more</numerusform>
            <numerusform>%1 and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>node %1 holds %n replica(s) (%2); the executor makes each again on another node before the node retires</source>
        <translation>
            <numerusform>node %1 holds %n replica (%2); the executor makes it again on another node before the node retires</numerusform>
            <numerusform>node %1 holds %n replicas (%2); the executor makes each again on another node before the node retires</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more shard(s) hold less than the limit; plan again once this merge is done</source>
        <translation>
            <numerusform>%n more shard holds less than the limit; plan again once this merge is done</numerusform>
            <numerusform>%n more shards hold less than the limit; plan again once this merge is done</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the merge of %1 can run once the rollback window(s) close</source>
        <translation>
            <numerusform>the merge of %1 can run once the rollback window closes</numerusform>
            <numerusform>the merge of %1 can run once the rollback windows close</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>retiring node %1 can run once the rollback window(s) close</source>
        <translation>
            <numerusform>retiring node %1 can run once the rollback window closes</numerusform>
            <numerusform>retiring node %1 can run once the rollback windows close</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the merge of %1 can run once the rollback window(s) close (%2)</source>
        <translation>
            <numerusform>the merge of %1 can run once the rollback window closes (%2)</numerusform>
            <numerusform>the merge of %1 can run once the rollback windows close (%2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>retiring node %1 can run once the rollback window(s) close (%2)</source>
        <translation>
            <numerusform>retiring node %1 can run once the rollback window closes (%2)</numerusform>
            <numerusform>retiring node %1 can run once the rollback windows close (%2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>and %n more</source>
        <translation>
            <numerusform>and %n more</numerusform>
            <numerusform>and %n more</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MigrationsSummary</name>
    <message numerus="yes">
        <source>%n done (rollback possible until %1)</source>
        <translation>
            <numerusform>%n done (rollback possible until %1)</numerusform>
            <numerusform>%n done (rollback possible until %1)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n queued</source>
        <translation>
            <numerusform>%n queued</numerusform>
            <numerusform>%n queued</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n removing the old copy</source>
        <translation>
            <numerusform>%n removing the old copy</numerusform>
            <numerusform>%n removing the old copy</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n active</source>
        <translation>
            <numerusform>%n active</numerusform>
            <numerusform>%n active</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n done</source>
        <translation>
            <numerusform>%n done</numerusform>
            <numerusform>%n done</numerusform>
        </translation>
    </message>
</context>
</TS>
