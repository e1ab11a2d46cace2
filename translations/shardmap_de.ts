<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>ConsoleOptions</name>
    <message>
        <source>Connect to this shard map store (sqlite:PATH or etcd://HOST:PORT/PREFIX; default: $SHARDMAP_STORE).</source>
        <translation>Mit diesem Shard-Map-Speicher verbinden (sqlite:PFAD oder etcd://HOST:PORT/PRÄFIX; Vorgabe: $SHARDMAP_STORE).</translation>
    </message>
    <message>
        <source>Connect with this saved connection profile (File &gt; Connect names them).</source>
        <translation>Mit diesem gespeicherten Verbindungsprofil verbinden (Datei &gt; Verbinden nennt sie).</translation>
    </message>
    <message>
        <source>Open the store read-only: look, never change (every action is disabled).</source>
        <translation>Den Speicher nur lesend öffnen: ansehen, nie ändern (alle Aktionen sind gesperrt).</translation>
    </message>
    <message>
        <source>The environment shown in the title and status bar (production shows red).</source>
        <translation>Die Umgebung, die Titel- und Statusleiste zeigen (production erscheint rot).</translation>
    </message>
    <message>
        <source>Language of this run (en, de), overriding settings and the system locale.</source>
        <translation>Sprache dieses Laufs (en, de), vor Einstellungen und Systemsprache.</translation>
    </message>
    <message>
        <source>How often nodes send live metrics (default 1000).</source>
        <translation>Wie oft Knoten Live-Metriken senden (Vorgabe 1000).</translation>
    </message>
    <message>
        <source>Connect through shardmapd&apos;s Admin API at HOST:PORT instead of the store: every change is checked against your role there and audited under your identity.</source>
        <translation>Über die Admin-API von shardmapd unter HOST:PORT statt über den Speicher verbinden: jede Änderung wird dort gegen Ihre Rolle geprüft und unter Ihrer Identität protokolliert.</translation>
    </message>
    <message>
        <source>CA certificate (PEM) that signed shardmapd&apos;s certificate.</source>
        <translation>CA-Zertifikat (PEM), das das Zertifikat von shardmapd signiert hat.</translation>
    </message>
    <message>
        <source>Client certificate (PEM) naming you to shardmapd (mutual TLS).</source>
        <translation>Client-Zertifikat (PEM), das Sie gegenüber shardmapd ausweist (gegenseitiges TLS).</translation>
    </message>
    <message>
        <source>Key of the client certificate.</source>
        <translation>Schlüssel des Client-Zertifikats.</translation>
    </message>
    <message>
        <source>A file holding a bearer token for shardmapd, instead of a client certificate.</source>
        <translation>Eine Datei mit einem Bearer-Token für shardmapd, statt eines Client-Zertifikats.</translation>
    </message>
    <message>
        <source>Start a demo fleet on loopback (3 shard nodes, shardmapd, a shard map in a temporary directory, a load generator) and connect to it; quitting stops it.</source>
        <translation>Eine Demo-Flotte auf Loopback starten (3 Shard-Knoten, shardmapd, eine Shard-Map in einem temporären Verzeichnis, ein Lastgenerator) und sich mit ihr verbinden; Beenden hält sie an.</translation>
    </message>
    <message>
        <source>Shardmap console: the fleet, its shard map and its metrics.</source>
        <translation>Shardmap-Konsole: die Flotte, ihre Shard-Map und ihre Metriken.</translation>
    </message>
</context>
<context>
    <name>DemoMode</name>
    <message>
        <source>Demo failed: %1</source>
        <translation>Demo fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Demo: %1 documents written, %2 searches, %3 errors through the router</source>
        <translation>Demo: %1 Dokumente geschrieben, %2 Suchen, %3 Fehler über den Router</translation>
    </message>
    <message>
        <source> (last error: %1)</source>
        <translation> (letzter Fehler: %1)</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::AlertThresholdsDialog</name>
    <message>
        <source>Alert Thresholds</source>
        <translation>Alarmschwellen</translation>
    </message>
    <message>
        <source>Migration stalled after</source>
        <translation>Migration gilt als festgefahren nach</translation>
    </message>
    <message>
        <source>Migration &amp;stalled after no progress for:</source>
        <translation>Migration &amp;festgefahren nach Stillstand von:</translation>
    </message>
    <message>
        <source>Time-left comparison window</source>
        <translation>Vergleichsfenster der Restzeit</translation>
    </message>
    <message>
        <source>Compare a backfill&apos;s time &amp;left with:</source>
        <translation>&amp;Restzeit eines Backfills vergleichen mit vor:</translation>
    </message>
    <message>
        <source>Time-left growth that fires</source>
        <translation>Anstieg der Restzeit, der auslöst</translation>
    </message>
    <message>
        <source>... and fire when it &amp;grew by more than:</source>
        <translation>... und auslösen, wenn sie um mehr &amp;gewachsen ist als:</translation>
    </message>
    <message>
        <source>Least time-left growth that fires</source>
        <translation>Mindestanstieg der Restzeit, der auslöst</translation>
    </message>
    <message>
        <source>... and by at &amp;least:</source>
        <translation>... und um &amp;mindestens:</translation>
    </message>
    <message>
        <source> h</source>
        <translation> h</translation>
    </message>
    <message>
        <source>Failed migrations fire for</source>
        <translation>Fehlgeschlagene Migrationen lösen aus für</translation>
    </message>
    <message>
        <source>&amp;Failed migrations fire for:</source>
        <translation>&amp;Fehlgeschlagene Migrationen lösen aus für:</translation>
    </message>
    <message>
        <source>Shard fill that warns</source>
        <translation>Shard-Füllstand, der warnt</translation>
    </message>
    <message>
        <source>A shard &amp;warns when filled to:</source>
        <translation>Ein Shard &amp;warnt bei einem Füllstand von:</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::AlertsModel</name>
    <message>
        <source>Snapshot too old</source>
        <translation>Snapshot zu alt</translation>
    </message>
    <message>
        <source>No usable snapshot; the schedule takes one every %1</source>
        <translation>Kein verwendbarer Snapshot; der Zeitplan erstellt alle %1 einen</translation>
    </message>
    <message>
        <source>The newest usable snapshot is %1 old; the schedule takes one every %2</source>
        <translation>Der neueste verwendbare Snapshot ist %1 alt; der Zeitplan erstellt alle %2 einen</translation>
    </message>
    <message>
        <source>Store unreachable</source>
        <translation>Store nicht erreichbar</translation>
    </message>
    <message>
        <source>No executor</source>
        <translation>Kein Executor</translation>
    </message>
    <message>
        <source>Node unreachable</source>
        <translation>Knoten nicht erreichbar</translation>
    </message>
    <message>
        <source>Disk filling up</source>
        <translation>Platte läuft voll</translation>
    </message>
    <message>
        <source>CPU high</source>
        <translation>CPU hoch</translation>
    </message>
    <message>
        <source>Memory high</source>
        <translation>Speicher hoch</translation>
    </message>
    <message>
        <source>Shard over capacity</source>
        <translation>Shard über Kapazität</translation>
    </message>
    <message>
        <source>Migration failed</source>
        <translation>Migration fehlgeschlagen</translation>
    </message>
    <message>
        <source>Migration stalled</source>
        <translation>Migration festgefahren</translation>
    </message>
    <message>
        <source>Migration slowing down</source>
        <translation>Migration wird langsamer</translation>
    </message>
    <message>
        <source>Audit broken</source>
        <translation>Audit gebrochen</translation>
    </message>
    <message>
        <source>The store cannot be read: %1</source>
        <translation>Der Store kann nicht gelesen werden: %1</translation>
    </message>
    <message numerus="yes">
        <source>No shardmapd holds the executor lease: %n open migration(s) wait until one does</source>
        <translation>
            <numerusform>Kein shardmapd hält die Executor-Lease: %n offene Migration wartet, bis einer sie hält</numerusform>
            <numerusform>Kein shardmapd hält die Executor-Lease: %n offene Migrationen warten, bis einer sie hält</numerusform>
        </translation>
    </message>
    <message>
        <source>No shardmapd holds the executor lease: migrations queued now would wait</source>
        <translation>Kein shardmapd hält die Executor-Lease: jetzt eingereihte Migrationen würden warten</translation>
    </message>
    <message>
        <source>Node %1 cannot be reached</source>
        <translation>Knoten %1 ist nicht erreichbar</translation>
    </message>
    <message>
        <source>Node %1 cannot be reached: %2</source>
        <translation>Knoten %1 ist nicht erreichbar: %2</translation>
    </message>
    <message>
        <source>Node %1: disk %2 used (limit %3)</source>
        <translation>Knoten %1: Platte zu %2 belegt (Grenze %3)</translation>
    </message>
    <message>
        <source>Node %1: CPU %2 on average (limit %3)</source>
        <translation>Knoten %1: CPU im Mittel %2 (Grenze %3)</translation>
    </message>
    <message>
        <source>Node %1: memory at %2 of its limit on average (limit %3)</source>
        <translation>Knoten %1: Speicher im Mittel bei %2 seiner Grenze (Grenze %3)</translation>
    </message>
    <message>
        <source>Shard %1: %2 of its capacity</source>
        <translation>Shard %1: %2 seiner Kapazität</translation>
    </message>
    <message>
        <source>Migration %1 failed</source>
        <translation>Migration %1 ist fehlgeschlagen</translation>
    </message>
    <message>
        <source>Migration %1 failed: %2</source>
        <translation>Migration %1 ist fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Migration %1 made no progress for %2</source>
        <translation>Migration %1 kommt seit %2 nicht voran</translation>
    </message>
    <message>
        <source>Migration %1: expected time left grew from %2 to %3</source>
        <translation>Migration %1: erwartete Restzeit ist von %2 auf %3 gestiegen</translation>
    </message>
    <message>
        <source>The audit is broken at revision %1: %2</source>
        <translation>Das Audit ist bei Revision %1 gebrochen: %2</translation>
    </message>
    <message>
        <source>Critical</source>
        <translation>Kritisch</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>Warnung</translation>
    </message>
    <message>
        <source>firing</source>
        <translation>aktiv</translation>
    </message>
    <message>
        <source>%1 at %2</source>
        <translation>%1 um %2</translation>
    </message>
    <message>
        <source>%1 alert, %2: %3</source>
        <translation>%1-Alarm, %2: %3</translation>
    </message>
    <message>
        <source>cleared</source>
        <translation>beendet</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>Schwere</translation>
    </message>
    <message>
        <source>Alert</source>
        <translation>Alarm</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation>Betrifft</translation>
    </message>
    <message>
        <source>What</source>
        <translation>Was</translation>
    </message>
    <message>
        <source>Fired</source>
        <translation>Ausgelöst</translation>
    </message>
    <message>
        <source>Cleared</source>
        <translation>Beendet</translation>
    </message>
    <message>
        <source>Acknowledged</source>
        <translation>Bestätigt</translation>
    </message>
    <message>
        <source>Store access denied</source>
        <translation>Store-Zugriff verweigert</translation>
    </message>
    <message>
        <source>Not allowed to read the store: %1</source>
        <translation>Keine Berechtigung, den Store zu lesen: %1</translation>
    </message>
    <message>
        <source>Shard failed over</source>
        <translation>Shard-Failover</translation>
    </message>
    <message>
        <source>Shard %1&apos;s primary moved away from node %2 at %3; the old primary catches up or was lost</source>
        <translation>Der Primär von Shard %1 ist am %3 von Knoten %2 weggezogen; der alte Primär holt auf oder ist verloren</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::AlertsPage</name>
    <message>
        <source>Show &amp;cleared</source>
        <translation>&amp;Beendete zeigen</translation>
    </message>
    <message>
        <source>&amp;Acknowledge</source>
        <translation>Be&amp;stätigen</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>Alarme</translation>
    </message>
    <message>
        <source>Alerts summary</source>
        <translation>Zusammenfassung der Alarme</translation>
    </message>
    <message>
        <source>Show cleared alerts</source>
        <translation>Beendete Alarme zeigen</translation>
    </message>
    <message>
        <source>Acknowledge the selected alerts</source>
        <translation>Die gewählten Alarme bestätigen</translation>
    </message>
    <message>
        <source>&amp;Thresholds…</source>
        <translation type="vanished">&amp;Schwellen…</translation>
    </message>
    <message>
        <source>Alert thresholds</source>
        <translation>Alarmschwellen</translation>
    </message>
    <message>
        <source>&amp;Health thresholds…</source>
        <translation type="vanished">&amp;Zustandsschwellen…</translation>
    </message>
    <message>
        <source>Node health thresholds</source>
        <translation type="vanished">Zustandsschwellen der Knoten</translation>
    </message>
    <message>
        <source>No alerts firing.</source>
        <translation>Keine aktiven Alarme.</translation>
    </message>
    <message numerus="yes">
        <source>%n alert(s) firing, all acknowledged.</source>
        <translation>
            <numerusform>%n Alarm aktiv, bestätigt.</numerusform>
            <numerusform>%n Alarme aktiv, alle bestätigt.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n alert(s) firing, </source>
        <translation>
            <numerusform>%n Alarm aktiv, </numerusform>
            <numerusform>%n Alarme aktiv, </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not acknowledged.</source>
        <translation>
            <numerusform>%n nicht bestätigt.</numerusform>
            <numerusform>%n nicht bestätigt.</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Thresholds</source>
        <translation>&amp;Schwellenwerte</translation>
    </message>
    <message>
        <source>&amp;Migration and shard alerts…</source>
        <translation>&amp;Migrations- und Shard-Alarme…</translation>
    </message>
    <message>
        <source>Node &amp;health…</source>
        <translation>&amp;Zustand der Knoten…</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ApprovalsPage</name>
    <message>
        <source>&amp;Approve…</source>
        <translation>&amp;Genehmigen…</translation>
    </message>
    <message>
        <source>Re&amp;fuse…</source>
        <translation>Ab&amp;lehnen…</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <source>Changes awaiting approval</source>
        <translation>Änderungen, die auf Genehmigung warten</translation>
    </message>
    <message>
        <source>Id</source>
        <translation>Id</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>Änderung</translation>
    </message>
    <message>
        <source>Requested by</source>
        <translation>Angefordert von</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>Needs approval because</source>
        <translation>Genehmigung nötig, weil</translation>
    </message>
    <message>
        <source>Requested</source>
        <translation>Angefragt</translation>
    </message>
    <message>
        <source>Decided by</source>
        <translation>Entschieden von</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Could not read the approvals: %1</source>
        <translation>Die Genehmigungen konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Approvals are kept by shardmapd: connect through a controller to decide them.</source>
        <translation>Genehmigungen verwaltet shardmapd: Verbinden Sie sich über einen Controller, um sie zu entscheiden.</translation>
    </message>
    <message>
        <source>Select an approval first.</source>
        <translation>Wählen Sie zuerst eine Genehmigung.</translation>
    </message>
    <message>
        <source>There is no approval %1.</source>
        <translation>Es gibt keine Genehmigung %1.</translation>
    </message>
    <message>
        <source>%1 is %2 already.</source>
        <translation>%1 ist bereits %2.</translation>
    </message>
    <message>
        <source>You requested %1: a different operator or admin decides it.</source>
        <translation>Sie haben %1 angefragt: Ein anderer Operator oder Admin entscheidet darüber.</translation>
    </message>
    <message>
        <source>A decision is on its way.</source>
        <translation>Eine Entscheidung ist unterwegs.</translation>
    </message>
    <message>
        <source>Approvals are kept by shardmapd: connect through a controller to see them.</source>
        <translation>Genehmigungen verwaltet shardmapd: Verbinden Sie sich über einen Controller, um sie zu sehen.</translation>
    </message>
    <message>
        <source>Approve %1</source>
        <translation>%1 genehmigen</translation>
    </message>
    <message>
        <source>Refuse %1</source>
        <translation>%1 ablehnen</translation>
    </message>
    <message>
        <source>Why (optional, recorded in the audit log):</source>
        <translation>Warum (optional, wird im Audit-Log festgehalten):</translation>
    </message>
    <message>
        <source>Why (recorded and shown to the requester):</source>
        <translation>Warum (wird festgehalten und dem Anfragenden gezeigt):</translation>
    </message>
    <message>
        <source>Approved %1: %2</source>
        <translation>%1 genehmigt: %2</translation>
    </message>
    <message>
        <source>Could not approve %1: %2</source>
        <translation>%1 konnte nicht genehmigt werden: %2</translation>
    </message>
    <message>
        <source>Refused %1.</source>
        <translation>%1 abgelehnt.</translation>
    </message>
    <message>
        <source>Could not refuse %1: %2</source>
        <translation>%1 konnte nicht abgelehnt werden: %2</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::AuditModel</name>
    <message numerus="yes">
        <source>%n record(s)</source>
        <translation>
            <numerusform>%n Datensatz</numerusform>
            <numerusform>%n Datensätze</numerusform>
        </translation>
    </message>
    <message>
        <source>Revision</source>
        <translation>Revision</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Actor</source>
        <translation>Akteur</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>Änderungen</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::AuditPage</name>
    <message>
        <source>Load older</source>
        <translation>Ältere laden</translation>
    </message>
    <message>
        <source>Select two revisions to see what changed between them.</source>
        <translation>Wählen Sie zwei Revisionen aus, um zu sehen, was sich zwischen ihnen geändert hat.</translation>
    </message>
    <message>
        <source>Could not read the map&apos;s history: %1</source>
        <translation>Der Verlauf der Shard-Map konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Could not read older revisions: %1</source>
        <translation>Ältere Revisionen konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>The oldest revision is shown.</source>
        <translation>Die älteste Revision wird angezeigt.</translation>
    </message>
    <message>
        <source>Not connected to a fleet.</source>
        <translation>Nicht mit einer Flotte verbunden.</translation>
    </message>
    <message>
        <source>Changes from revision %1 to %2 (computing…)</source>
        <translation>Änderungen von Revision %1 bis %2 (wird berechnet…)</translation>
    </message>
    <message>
        <source>Changes from revision %1 to %2</source>
        <translation>Änderungen von Revision %1 bis %2</translation>
    </message>
    <message>
        <source>Could not compare revisions %1 and %2: %3</source>
        <translation>Die Revisionen %1 und %2 konnten nicht verglichen werden: %3</translation>
    </message>
    <message numerus="yes">
        <source>Changes from revision %1 to %2 (%n commit(s))</source>
        <translation>
            <numerusform>Änderungen von Revision %1 bis %2 (%n Commit)</numerusform>
            <numerusform>Änderungen von Revision %1 bis %2 (%n Commits)</numerusform>
        </translation>
    </message>
    <message>
        <source>Space %1 created on %2</source>
        <translation>Space %1 auf %2 angelegt</translation>
    </message>
    <message>
        <source>Space %1 removed from %2</source>
        <translation>Space %1 von %2 entfernt</translation>
    </message>
    <message>
        <source>Space %1 stayed on %2 (epoch %3 → %4)</source>
        <translation>Space %1 blieb auf %2 (Epoche %3 → %4)</translation>
    </message>
    <message>
        <source>Space %1 moved %2 → %3 (epoch %4 → %5)</source>
        <translation>Space %1 verschoben %2 → %3 (Epoche %4 → %5)</translation>
    </message>
    <message>
        <source>Shard %1 created (%2)</source>
        <translation>Shard %1 angelegt (%2)</translation>
    </message>
    <message>
        <source>Shard %1 removed</source>
        <translation>Shard %1 entfernt</translation>
    </message>
    <message>
        <source>Shard %1: %2 → %3</source>
        <translation>Shard %1: %2 → %3</translation>
    </message>
    <message>
        <source>Node %1 added</source>
        <translation>Knoten %1 hinzugefügt</translation>
    </message>
    <message>
        <source>Node %1 removed</source>
        <translation>Knoten %1 entfernt</translation>
    </message>
    <message>
        <source>Node %1 changed</source>
        <translation>Knoten %1 geändert</translation>
    </message>
    <message>
        <source>Index template %1 created</source>
        <translation>Indexvorlage %1 angelegt</translation>
    </message>
    <message>
        <source>Index template %1 removed</source>
        <translation>Indexvorlage %1 entfernt</translation>
    </message>
    <message>
        <source>No spaces, shards or nodes changed.</source>
        <translation>Es wurden keine Spaces, Shards oder Knoten geändert.</translation>
    </message>
    <message>
        <source>Space %1 pinned to %2</source>
        <translation>Space %1 an %2 angeheftet</translation>
    </message>
    <message>
        <source>Space %1 unpinned (was pinned to %2)</source>
        <translation>Space %1 gelöst (war an %2 angeheftet)</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ConnectDialog</name>
    <message>
        <source>Connect to a Fleet</source>
        <translation>Mit einer Flotte verbinden</translation>
    </message>
    <message>
        <source>Choose a recent connection…</source>
        <translation>Zuletzt verwendete Verbindung wählen…</translation>
    </message>
    <message>
        <source>&amp;Recent:</source>
        <translation>&amp;Zuletzt verwendet:</translation>
    </message>
    <message>
        <source>SQLite file</source>
        <translation>SQLite-Datei</translation>
    </message>
    <message>
        <source>etcd cluster</source>
        <translation>etcd-Cluster</translation>
    </message>
    <message>
        <source>&amp;Shard map store:</source>
        <translation>&amp;Speicher der Shard-Map:</translation>
    </message>
    <message>
        <source> ms</source>
        <translation> ms</translation>
    </message>
    <message>
        <source>&amp;Metrics interval:</source>
        <translation>&amp;Metrik-Intervall:</translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation>&amp;Verbinden</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>&amp;File:</source>
        <translation>&amp;Datei:</translation>
    </message>
    <message>
        <source>SQLite databases (*.db *.sqlite *.sqlite3);;All files (*)</source>
        <translation>SQLite-Datenbanken (*.db *.sqlite *.sqlite3);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>The shard map&apos;s SQLite file</source>
        <translation>Die SQLite-Datei der Shard-Map</translation>
    </message>
    <message>
        <source>PEM files (*.pem *.crt *.key);;All files (*)</source>
        <translation>PEM-Dateien (*.pem *.crt *.key);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>host:port, host:port, …</source>
        <translation>host:port, host:port, …</translation>
    </message>
    <message>
        <source>&amp;Endpoints:</source>
        <translation>&amp;Endpunkte:</translation>
    </message>
    <message>
        <source>Key prefix, e.g. shardmap</source>
        <translation>Schlüsselpräfix, z. B. shardmap</translation>
    </message>
    <message>
        <source>&amp;Prefix:</source>
        <translation>&amp;Präfix:</translation>
    </message>
    <message>
        <source>&amp;User:</source>
        <translation>&amp;Benutzer:</translation>
    </message>
    <message>
        <source>Pass&amp;word:</source>
        <translation>Pass&amp;wort:</translation>
    </message>
    <message>
        <source>etcd TLS</source>
        <translation>etcd-TLS</translation>
    </message>
    <message>
        <source>CA certificate:</source>
        <translation>CA-Zertifikat:</translation>
    </message>
    <message>
        <source>Client certificate:</source>
        <translation>Client-Zertifikat:</translation>
    </message>
    <message>
        <source>Client key:</source>
        <translation>Client-Schlüssel:</translation>
    </message>
    <message>
        <source>Node TLS (optional)</source>
        <translation>TLS zu den Knoten (optional)</translation>
    </message>
    <message>
        <source>Choose the SQLite file of the shard map.</source>
        <translation>Wählen Sie die SQLite-Datei der Shard-Map.</translation>
    </message>
    <message>
        <source>The node client certificate needs its key file.</source>
        <translation>Das Client-Zertifikat für die Knoten braucht seine Schlüsseldatei.</translation>
    </message>
    <message>
        <source>The node key file needs its client certificate.</source>
        <translation>Die Schlüsseldatei für die Knoten braucht ihr Client-Zertifikat.</translation>
    </message>
    <message>
        <source>Enter at least one etcd endpoint as host:port.</source>
        <translation>Geben Sie mindestens einen etcd-Endpunkt als host:port ein.</translation>
    </message>
    <message>
        <source>“%1” is not an endpoint of the form host:port.</source>
        <translation>„%1“ ist kein Endpunkt der Form host:port.</translation>
    </message>
    <message>
        <source>Enter the key prefix of the shard map in etcd.</source>
        <translation>Geben Sie das Schlüsselpräfix der Shard-Map in etcd ein.</translation>
    </message>
    <message>
        <source>A password needs a user name.</source>
        <translation>Zu einem Passwort gehört ein Benutzername.</translation>
    </message>
    <message>
        <source>The etcd client certificate needs its key file.</source>
        <translation>Das etcd-Client-Zertifikat braucht seine Schlüsseldatei.</translation>
    </message>
    <message>
        <source>The etcd key file needs its client certificate.</source>
        <translation>Die etcd-Schlüsseldatei braucht ihr Client-Zertifikat.</translation>
    </message>
    <message>
        <source>Saving the password in the system keyring…</source>
        <translation>Das Passwort wird im Schlüsselbund des Systems gespeichert…</translation>
    </message>
    <message>
        <source>Press Connect again to connect without saving it.</source>
        <translation>Klicken Sie erneut auf „Verbinden“, um ohne gespeichertes Passwort zu verbinden.</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>Profil</translation>
    </message>
    <message>
        <source>e.g. search-eu (optional)</source>
        <translation>z. B. search-eu (optional)</translation>
    </message>
    <message>
        <source>Profile name</source>
        <translation>Profilname</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>Umgebung</translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation>&amp;Umgebung:</translation>
    </message>
    <message>
        <source>&amp;Read-only: look, never change</source>
        <translation>&amp;Nur lesen: ansehen, nie ändern</translation>
    </message>
    <message>
        <source>Read-only connection</source>
        <translation>Verbindung nur zum Lesen</translation>
    </message>
    <message>
        <source>shardmapd (Admin API)</source>
        <translation>shardmapd (Admin-API)</translation>
    </message>
    <message>
        <source>host:port of shardmapd</source>
        <translation>host:port von shardmapd</translation>
    </message>
    <message>
        <source>&amp;Controller:</source>
        <translation>&amp;Controller:</translation>
    </message>
    <message>
        <source>Or token file:</source>
        <translation>Oder Token-Datei:</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Enter shardmapd&apos;s address as host:port.</source>
        <translation>Geben Sie die Adresse von shardmapd als host:port ein.</translation>
    </message>
    <message>
        <source>The controller client certificate needs its key file.</source>
        <translation>Das Client-Zertifikat für den Controller braucht seine Schlüsseldatei.</translation>
    </message>
    <message>
        <source>The controller key file needs its client certificate.</source>
        <translation>Die Schlüsseldatei für den Controller braucht ihr Client-Zertifikat.</translation>
    </message>
    <message>
        <source>Choose a client certificate or a token file, not both.</source>
        <translation>Wählen Sie ein Client-Zertifikat oder eine Token-Datei, nicht beides.</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ConnectionSpec</name>
    <message>
        <source>read-only</source>
        <translation>nur lesen</translation>
    </message>
    <message>
        <source>This connection is read-only: nothing can be changed from it. Connect without read-only to act.</source>
        <translation>Diese Verbindung ist nur zum Lesen: über sie lässt sich nichts ändern. Verbinden Sie ohne „Nur lesen“, um zu handeln.</translation>
    </message>
    <message>
        <source>You are a viewer: nothing can be changed from this connection. An operator or admin can act.</source>
        <translation>Sie sind Betrachter: Über diese Verbindung lässt sich nichts ändern. Ein Operator oder Admin kann handeln.</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::DemoFleet</name>
    <message>
        <source>The demo fleet did not start within %1 s (still waiting for: %2).</source>
        <translation>Die Demo-Flotte ist nicht innerhalb von %1 s gestartet (wartet noch auf: %2).</translation>
    </message>
    <message>
        <source>the shard map</source>
        <translation>die Shard-Map</translation>
    </message>
    <message>
        <source>Cannot find %1: it is neither next to this program nor on PATH (set %2 to its path).</source>
        <translation>%1 wurde nicht gefunden: Es liegt weder neben diesem Programm noch im PATH (setzen Sie %2 auf seinen Pfad).</translation>
    </message>
    <message>
        <source>Cannot run %1: %2 is not an executable file.</source>
        <translation>%1 kann nicht ausgeführt werden: %2 ist keine ausführbare Datei.</translation>
    </message>
    <message>
        <source>Cannot create a temporary directory for the demo: %1</source>
        <translation>Für die Demo kann kein temporäres Verzeichnis angelegt werden: %1</translation>
    </message>
    <message numerus="yes">
        <source>Demo: starting %n shard node(s)…</source>
        <translation>
            <numerusform>Demo: %n Shard-Knoten wird gestartet…</numerusform>
            <numerusform>Demo: %n Shard-Knoten werden gestartet…</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot start %1 (%2): %3</source>
        <translation>%1 (%2) kann nicht gestartet werden: %3</translation>
    </message>
    <message>
        <source>Demo: %1 is listening on %2</source>
        <translation>Demo: %1 lauscht auf %2</translation>
    </message>
    <message>
        <source>Demo: fleet ready — router on %1, shard map %2, files in %3</source>
        <translation>Demo: Flotte bereit — Router auf %1, Shard-Map %2, Dateien in %3</translation>
    </message>
    <message>
        <source>Demo: registering nodes and creating shards in %1</source>
        <translation>Demo: Knoten werden registriert und Shards in %1 angelegt</translation>
    </message>
    <message>
        <source>Cannot set up the demo&apos;s shard map: %1</source>
        <translation>Die Shard-Map der Demo kann nicht eingerichtet werden: %1</translation>
    </message>
    <message>
        <source>Demo: starting shardmapd (the router)…</source>
        <translation>Demo: shardmapd (der Router) wird gestartet…</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>ist abgestürzt</translation>
    </message>
    <message>
        <source>exited with code %1</source>
        <translation>wurde mit Code %1 beendet</translation>
    </message>
    <message>
        <source>%1 %2: %3</source>
        <translation>%1 %2: %3</translation>
    </message>
    <message>
        <source>(no log)</source>
        <translation>(kein Protokoll)</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::DetailPage</name>
    <message>
        <source>Documents</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>Bytes on disk</source>
        <translation>Belegter Speicherplatz</translation>
    </message>
    <message>
        <source>Queries per second</source>
        <translation>Abfragen pro Sekunde</translation>
    </message>
    <message>
        <source>Query latency (p99)</source>
        <translation>Abfragelatenz (p99)</translation>
    </message>
    <message>
        <source>Indexing rate (docs/s)</source>
        <translation>Indexierungsrate (Dok./s)</translation>
    </message>
    <message>
        <source>Node memory (RSS)</source>
        <translation>Arbeitsspeicher des Knotens (RSS)</translation>
    </message>
    <message>
        <source>Node disk free</source>
        <translation>Freier Speicherplatz des Knotens</translation>
    </message>
    <message>
        <source>Node CPU</source>
        <translation>CPU-Auslastung des Knotens</translation>
    </message>
    <message>
        <source>Node IO wait</source>
        <translation>E/A-Wartezeit des Knotens</translation>
    </message>
    <message>
        <source>5 min</source>
        <translation>5 min</translation>
    </message>
    <message>
        <source>1 h</source>
        <translation>1 h</translation>
    </message>
    <message>
        <source>24 h</source>
        <translation>24 h</translation>
    </message>
    <message>
        <source>Compare with…</source>
        <translation>Vergleichen mit…</translation>
    </message>
    <message>
        <source>Draw other shards beside this one</source>
        <translation>Weitere Shards neben diesem einzeichnen</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Exportieren…</translation>
    </message>
    <message>
        <source>Save the chart as a PNG image or a PDF document</source>
        <translation>Das Diagramm als PNG-Bild oder PDF-Dokument speichern</translation>
    </message>
    <message>
        <source>node %1 is unreachable: %2</source>
        <translation>Knoten %1 ist nicht erreichbar: %2</translation>
    </message>
    <message>
        <source>the history of node %1 could not be read: %2</source>
        <translation>der Verlauf von Knoten %1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>node %1</source>
        <translation>Knoten %1</translation>
    </message>
    <message>
        <source>shard %1</source>
        <translation>Shard %1</translation>
    </message>
    <message>
        <source>Node %1</source>
        <translation>Knoten %1</translation>
    </message>
    <message>
        <source>Shard %1 on node %2, %3 index</source>
        <translation>Shard %1 auf Knoten %2, Index %3</translation>
    </message>
    <message>
        <source>Shard %1 (not in the map)</source>
        <translation>Shard %1 (nicht in der Shard-Map)</translation>
    </message>
    <message>
        <source>No shard selected</source>
        <translation>Kein Shard ausgewählt</translation>
    </message>
    <message>
        <source>%1, compared with %2</source>
        <translation>%1, verglichen mit %2</translation>
    </message>
    <message>
        <source>Spaces on shard %1</source>
        <translation>Spaces auf Shard %1</translation>
    </message>
    <message>
        <source>%1 (node %2)</source>
        <translation>%1 (Knoten %2)</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG-Bild (*.png)</translation>
    </message>
    <message>
        <source>PDF document (*.pdf)</source>
        <translation>PDF-Dokument (*.pdf)</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>Diagramm exportieren</translation>
    </message>
    <message>
        <source>Choose a shard or a node in the box above: type part of its id and pick it from the list. A double-click on the Fleet page opens one too, and Ctrl+F opens the shard of a space.</source>
        <translation>Wählen Sie oben einen Shard oder Knoten: Teil der ID eingeben und aus der Liste wählen. Ein Doppelklick auf der Flottenseite öffnet ebenfalls einen, und Strg+F öffnet den Shard eines Space.</translation>
    </message>
    <message>
        <source>Shard or node…</source>
        <translation>Shard oder Knoten…</translation>
    </message>
    <message>
        <source>Shard or node</source>
        <translation>Shard oder Knoten</translation>
    </message>
    <message>
        <source>Type part of a shard or node id and pick it to show its detail</source>
        <translation>Teil einer Shard- oder Knoten-ID eingeben und wählen, um die Details zu zeigen</translation>
    </message>
    <message>
        <source>The shard or node shown: type part of its id and pick it from the list</source>
        <translation>Der gezeigte Shard oder Knoten: Teil der ID eingeben und aus der Liste wählen</translation>
    </message>
    <message>
        <source>&amp;Show:</source>
        <translation>&amp;Zeigen:</translation>
    </message>
    <message>
        <source>The map has no shard or node &quot;%1&quot;.</source>
        <translation>Die Karte hat keinen Shard oder Knoten „%1“.</translation>
    </message>
    <message>
        <source>Spaces on node %1 (shards %2)</source>
        <translation>Spaces auf Knoten %1 (Shards %2)</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::FleetConnection</name>
    <message>
        <source>Connecting to %1</source>
        <translation>Verbindung zu %1 wird hergestellt</translation>
    </message>
    <message>
        <source>Disconnected</source>
        <translation>Getrennt</translation>
    </message>
    <message>
        <source>Store unreachable: %1 — retrying in %2 s</source>
        <translation>Speicher der Shard-Map nicht erreichbar: %1 — neuer Versuch in %2 s</translation>
    </message>
    <message>
        <source>Connected to %1</source>
        <translation>Verbunden mit %1</translation>
    </message>
    <message>
        <source>the metrics stream ended</source>
        <translation>der Metrik-Stream wurde beendet</translation>
    </message>
    <message>
        <source>no metrics for %1 s</source>
        <translation>seit %1 s keine Metriken</translation>
    </message>
    <message>
        <source>node %1 is not in the map</source>
        <translation>Knoten %1 ist nicht in der Shard-Map</translation>
    </message>
    <message>
        <source>node %1 is unreachable: %2</source>
        <translation>Knoten %1 ist nicht erreichbar: %2</translation>
    </message>
    <message>
        <source>shardmapd has not said yet who you are.</source>
        <translation>shardmapd hat noch nicht gesagt, wer Sie sind.</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Not connected to a fleet.</source>
        <translation>Nicht mit einer Flotte verbunden.</translation>
    </message>
    <message>
        <source>Awaiting approval as %1: %2. It needs a second person because %3.</source>
        <translation>Wartet als %1 auf Genehmigung: %2. Eine zweite Person muss zustimmen, weil %3.</translation>
    </message>
    <message>
        <source>Not allowed to read the store: %1 — trying again in %2 s</source>
        <translation>Keine Berechtigung, den Store zu lesen: %1 — neuer Versuch in %2 s</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::FleetModel</name>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1/s</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>active</source>
        <translation>aktiv</translation>
    </message>
    <message>
        <source>draining</source>
        <translation>wird geleert</translation>
    </message>
    <message>
        <source>read-only</source>
        <translation>schreibgeschützt</translation>
    </message>
    <message>
        <source>retired</source>
        <translation>stillgelegt</translation>
    </message>
    <message>
        <source>connecting</source>
        <translation>verbindet</translation>
    </message>
    <message>
        <source>online</source>
        <translation>online</translation>
    </message>
    <message>
        <source>unreachable</source>
        <translation>nicht erreichbar</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>Adresse</translation>
    </message>
    <message>
        <source>Spaces</source>
        <translation>Spaces</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>Size on disk</source>
        <translation>Größe auf Datenträger</translation>
    </message>
    <message>
        <source>RSS</source>
        <translation>RSS</translation>
    </message>
    <message>
        <source>Disk free</source>
        <translation>Speicherplatz frei</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>IO wait</source>
        <translation>E/A-Wartezeit</translation>
    </message>
    <message>
        <source>Queries/s</source>
        <translation>Abfragen/s</translation>
    </message>
    <message>
        <source>p99 latency</source>
        <translation>p99-Latenz</translation>
    </message>
    <message>
        <source>Indexed/s</source>
        <translation>Indexiert/s</translation>
    </message>
    <message>
        <source>%1 history</source>
        <translation>Verlauf (%1)</translation>
    </message>
    <message>
        <source>node unreachable</source>
        <translation>Knoten nicht erreichbar</translation>
    </message>
    <message>
        <source>node unreachable: %1</source>
        <translation>Knoten nicht erreichbar: %1</translation>
    </message>
    <message>
        <source>node retired</source>
        <translation>Knoten stillgelegt</translation>
    </message>
    <message>
        <source>disk %1 % used (red at %2 %)</source>
        <translation>Datenträger zu %1 % belegt (rot ab %2 %)</translation>
    </message>
    <message>
        <source>disk %1 % used (amber at %2 %)</source>
        <translation>Datenträger zu %1 % belegt (gelb ab %2 %)</translation>
    </message>
    <message>
        <source>CPU %1 % averaged over %2 min (amber at %3 %)</source>
        <translation>CPU %1 % im Mittel über %2 min (gelb ab %3 %)</translation>
    </message>
    <message>
        <source>RSS at %1 % of the %2 memory limit (red at %3 %)</source>
        <translation>RSS bei %1 % des Speicherlimits von %2 (rot ab %3 %)</translation>
    </message>
    <message>
        <source>RSS at %1 % of the %2 memory limit (amber at %3 %)</source>
        <translation>RSS bei %1 % des Speicherlimits von %2 (gelb ab %3 %)</translation>
    </message>
    <message>
        <source>the node reports the shard unhealthy</source>
        <translation>der Knoten meldet den Shard als fehlerhaft</translation>
    </message>
    <message>
        <source>the node does not report this shard</source>
        <translation>der Knoten meldet diesen Shard nicht</translation>
    </message>
    <message>
        <source>shard is draining</source>
        <translation>Shard wird geleert</translation>
    </message>
    <message>
        <source>shard is read-only</source>
        <translation>Shard ist schreibgeschützt</translation>
    </message>
    <message>
        <source>shard is retired</source>
        <translation>Shard ist stillgelegt</translation>
    </message>
    <message>
        <source>shard is active</source>
        <translation>Shard ist aktiv</translation>
    </message>
    <message>
        <source>Search latency, 99th percentile</source>
        <translation>Suchlatenz, 99. Perzentil</translation>
    </message>
    <message>
        <source>p99</source>
        <translation>p99</translation>
    </message>
    <message>
        <source>no copy in sync serves (%1 wanted)</source>
        <translation>keine synchrone Kopie dient (%1 gewünscht)</translation>
    </message>
    <message>
        <source>%1 of %2 copies in sync (under-replicated)</source>
        <translation>%1 von %2 Kopien synchron (unterrepliziert)</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::FleetPage</name>
    <message>
        <source>Only problems</source>
        <translation>Nur Probleme</translation>
    </message>
    <message>
        <source>Filter nodes and shards</source>
        <translation>Knoten und Shards filtern</translation>
    </message>
    <message>
        <source>Thresholds…</source>
        <translation>Schwellenwerte…</translation>
    </message>
    <message>
        <source>Sparkline:</source>
        <translation>Sparkline:</translation>
    </message>
    <message>
        <source>Drain %1…</source>
        <translation>%1 leeren…</translation>
    </message>
    <message>
        <source>Split %1…</source>
        <translation>%1 teilen…</translation>
    </message>
    <message>
        <source>Merge %1 into…</source>
        <translation>%1 zusammenführen mit…</translation>
    </message>
    <message>
        <source>Retire node %1…</source>
        <translation>Knoten %1 stilllegen…</translation>
    </message>
    <message>
        <source>Add a shard on %1 and fill it…</source>
        <translation>Shard auf %1 anlegen und füllen…</translation>
    </message>
    <message>
        <source>Rebalance the fleet…</source>
        <translation>Flotte ausgleichen…</translation>
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
    <message>
        <source>active</source>
        <translation>aktiv</translation>
    </message>
    <message>
        <source>draining</source>
        <translation>wird geleert</translation>
    </message>
    <message>
        <source>readonly</source>
        <translation>schreibgeschützt</translation>
    </message>
    <message>
        <source>retired</source>
        <translation>stillgelegt</translation>
    </message>
    <message>
        <source>queued</source>
        <translation>wartend</translation>
    </message>
    <message>
        <source>dual_write</source>
        <translation>doppeltes Schreiben</translation>
    </message>
    <message>
        <source>backfill</source>
        <translation>Nachfüllen</translation>
    </message>
    <message>
        <source>verify</source>
        <translation>Prüfen</translation>
    </message>
    <message>
        <source>cutover</source>
        <translation>Umschalten</translation>
    </message>
    <message>
        <source>cleanup</source>
        <translation>Aufräumen</translation>
    </message>
    <message>
        <source>done</source>
        <translation>fertig</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>done, rollback possible until %1 (%2 left)</source>
        <translation>fertig, Rückabwicklung möglich bis %1 (noch %2)</translation>
    </message>
    <message>
        <source>queuing</source>
        <translation>wird eingereiht</translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>drain</source>
        <translation>Leeren</translation>
    </message>
    <message>
        <source>retire-node</source>
        <translation>Knoten stilllegen</translation>
    </message>
    <message>
        <source>split</source>
        <translation>Teilen</translation>
    </message>
    <message>
        <source>merge</source>
        <translation>Zusammenführen</translation>
    </message>
    <message>
        <source>isolate</source>
        <translation>Isolieren</translation>
    </message>
    <message>
        <source>reindex</source>
        <translation>Neu indexieren</translation>
    </message>
    <message>
        <source>move</source>
        <translation>Verschieben</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::HealthSettingsDialog</name>
    <message>
        <source>Health Thresholds</source>
        <translation>Schwellenwerte für den Zustand</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>Kein Limit</translation>
    </message>
    <message>
        <source>Disk used, amber at:</source>
        <translation>Datenträger belegt, gelb ab:</translation>
    </message>
    <message>
        <source>Disk used, red at:</source>
        <translation>Datenträger belegt, rot ab:</translation>
    </message>
    <message>
        <source>CPU average, amber at:</source>
        <translation>CPU-Mittelwert, gelb ab:</translation>
    </message>
    <message>
        <source>CPU averaged over:</source>
        <translation>CPU gemittelt über:</translation>
    </message>
    <message>
        <source>Node memory limit:</source>
        <translation>Speicherlimit pro Knoten:</translation>
    </message>
    <message>
        <source>Memory (RSS) of the limit, amber at:</source>
        <translation>RSS-Anteil am Speicherlimit, gelb ab:</translation>
    </message>
    <message>
        <source>Memory (RSS) of the limit, red at:</source>
        <translation>RSS-Anteil am Speicherlimit, rot ab:</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::InlineMessage</name>
    <message>
        <source>Message</source>
        <translation>Meldung</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::LoadBarsChart</name>
    <message>
        <source>docs</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>Vorher</translation>
    </message>
    <message>
        <source>After</source>
        <translation>Nachher</translation>
    </message>
    <message>
        <source>%1 per shard, before and after: the %2 of %3 shards the plan changes most</source>
        <translation>%1 je Shard, vorher und nachher: die %2 von %3 Shards, die der Plan am stärksten ändert</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <source>Docs</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>%1 per shard, before and after</source>
        <translation>%1 je Shard, vorher und nachher</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MainWindow</name>
    <message>
        <source>Shardmap</source>
        <translation>Shardmap</translation>
    </message>
    <message>
        <source>Fleet</source>
        <translation>Flotte</translation>
    </message>
    <message>
        <source>Shard detail</source>
        <translation>Shard-Details</translation>
    </message>
    <message>
        <source>%1 (Ctrl+%2)</source>
        <translation>%1 (Strg+%2)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Connect…</source>
        <translation>&amp;Verbinden…</translation>
    </message>
    <message>
        <source>&amp;Recent connections</source>
        <translation>&amp;Zuletzt verwendete Verbindungen</translation>
    </message>
    <message>
        <source>&amp;Disconnect</source>
        <translation>&amp;Trennen</translation>
    </message>
    <message>
        <source>&amp;Export chart…</source>
        <translation>Diagramm &amp;exportieren…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Find space…</source>
        <translation>Space &amp;suchen…</translation>
    </message>
    <message>
        <source>&amp;Fleet</source>
        <translation>&amp;Flotte</translation>
    </message>
    <message>
        <source>Shard &amp;detail</source>
        <translation>Shard-&amp;Details</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>&amp;Einstellungen</translation>
    </message>
    <message>
        <source>&amp;Health thresholds…</source>
        <translation>&amp;Schwellenwerte für den Zustand…</translation>
    </message>
    <message>
        <source>&amp;Preferences…</source>
        <translation>Shardmap &amp;einrichten…</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;About Shardmap</source>
        <translation>&amp;Über Shardmap</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Hauptwerkzeugleiste</translation>
    </message>
    <message>
        <source>Find space by id (Ctrl+F)</source>
        <translation>Space nach ID suchen (Strg+F)</translation>
    </message>
    <message>
        <source>Not connected: connect to a fleet to find spaces</source>
        <translation>Nicht verbunden: Verbinden Sie sich mit einer Flotte, um Spaces zu suchen</translation>
    </message>
    <message>
        <source>No space &quot;%1&quot; in the shard map</source>
        <translation>Kein Space „%1“ in der Shard-Map</translation>
    </message>
    <message>
        <source>About Shardmap</source>
        <translation>Über Shardmap</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Shardmap %1&lt;/h3&gt;&lt;p&gt;The control plane and console of a sharded full-text search fleet.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Shardmap %1&lt;/h3&gt;&lt;p&gt;Die Steuerungsebene und Konsole einer Volltextsuch-Flotte mit Sharding.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Not connected</source>
        <translation>Nicht verbunden</translation>
    </message>
    <message>
        <source>Not connected. Use File ▸ Connect… (Ctrl+O) to open a fleet&apos;s shard map.</source>
        <translation>Nicht verbunden. Öffnen Sie mit Datei ▸ Verbinden… (Strg+O) die Shard-Map einer Flotte.</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>Verbindung zu %1 wird hergestellt…</translation>
    </message>
    <message>
        <source>Connected: %1</source>
        <translation>Verbunden: %1</translation>
    </message>
    <message>
        <source>Reconnecting to %1…</source>
        <translation>Verbindung zu %1 wird wiederhergestellt…</translation>
    </message>
    <message>
        <source>%1 — Shardmap</source>
        <translation>%1 — Shardmap</translation>
    </message>
    <message>
        <source>Map revision %1</source>
        <translation>Shard-Map-Revision %1</translation>
    </message>
    <message>
        <source>No metrics yet</source>
        <translation>Noch keine Metriken</translation>
    </message>
    <message>
        <source>Metrics %1 s old</source>
        <translation>Metriken %1 s alt</translation>
    </message>
    <message>
        <source>Shard map</source>
        <translation>Shard-Map</translation>
    </message>
    <message>
        <source>Migrations</source>
        <translation>Migrationen</translation>
    </message>
    <message>
        <source>Audit</source>
        <translation>Prüfprotokoll</translation>
    </message>
    <message>
        <source>Shard &amp;map</source>
        <translation>Shard-&amp;Map</translation>
    </message>
    <message>
        <source>&amp;Migrations</source>
        <translation>M&amp;igrationen</translation>
    </message>
    <message>
        <source>&amp;Audit</source>
        <translation>&amp;Prüfprotokoll</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>&amp;Plan</translation>
    </message>
    <message>
        <source>What-if</source>
        <translation>Was-wäre-wenn</translation>
    </message>
    <message>
        <source>Index settings</source>
        <translation>Indexeinstellungen</translation>
    </message>
    <message>
        <source>Backups</source>
        <translation>Sicherungen</translation>
    </message>
    <message>
        <source>Balancer</source>
        <translation>Balancer</translation>
    </message>
    <message>
        <source>&amp;What-if simulator</source>
        <translation>&amp;Was-wäre-wenn-Simulator</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>Übersicht</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>Alarme</translation>
    </message>
    <message>
        <source>Alerts (%1)</source>
        <translation>Alarme (%1)</translation>
    </message>
    <message>
        <source>Alerts, none firing</source>
        <translation>Alarme, keiner aktiv</translation>
    </message>
    <message numerus="yes">
        <source>Alerts, %n firing</source>
        <translation>
            <numerusform>Alarme, %n aktiv</numerusform>
            <numerusform>Alarme, %n aktiv</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not acknowledged</source>
        <translation>
            <numerusform>%n nicht bestätigt</numerusform>
            <numerusform>%n nicht bestätigt</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n alerts fired</source>
        <translation>
            <numerusform>%n Alarm ausgelöst</numerusform>
            <numerusform>%n Alarme ausgelöst</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;New window</source>
        <translation>&amp;Neues Fenster</translation>
    </message>
    <message>
        <source>READ-ONLY</source>
        <translation>NUR LESEN</translation>
    </message>
    <message>
        <source>Environment: %1</source>
        <translation>Umgebung: %1</translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation>Genehmigungen</translation>
    </message>
    <message>
        <source>VIEWER</source>
        <translation>BETRACHTER</translation>
    </message>
    <message>
        <source>Approvals (%1)</source>
        <translation>Genehmigungen (%1)</translation>
    </message>
    <message>
        <source>Approvals, none pending</source>
        <translation>Genehmigungen, keine offen</translation>
    </message>
    <message numerus="yes">
        <source>Approvals, %n pending</source>
        <translation>
            <numerusform>Genehmigungen, %n offen</numerusform>
            <numerusform>Genehmigungen, %n offen</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MapLegend</name>
    <message>
        <source>Legend</source>
        <translation>Legende</translation>
    </message>
    <message>
        <source>Tiles: green idle to red busiest; grey no figures yet; dashed border moving or planned. Lane bar: fill, red past 90%, mark after moves.</source>
        <translation>Kacheln: grün ruhig bis rot am stärksten belastet; grau noch ohne Zahlen; gestrichelter Rand wird verschoben oder ist geplant. Balken der Bahn: Füllung, rot über 90 %, Markierung nach den Verschiebungen.</translation>
    </message>
    <message>
        <source>Load: idle → busiest space</source>
        <translation>Last: ruhig → stärkster Space</translation>
    </message>
    <message>
        <source>No figures yet</source>
        <translation>Noch keine Zahlen</translation>
    </message>
    <message>
        <source>Moving or planned</source>
        <translation>Wird verschoben oder geplant</translation>
    </message>
    <message>
        <source>Shard fill (red past 90%), | after moves</source>
        <translation>Füllung (rot über 90 %), | nach Verschiebungen</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MapPage</name>
    <message>
        <source>Size by docs</source>
        <translation>Größe nach Dokumenten</translation>
    </message>
    <message>
        <source>Size by bytes</source>
        <translation>Größe nach Bytes</translation>
    </message>
    <message>
        <source>Find space…</source>
        <translation>Space suchen…</translation>
    </message>
    <message>
        <source>Move to…</source>
        <translation>Verschieben nach…</translation>
    </message>
    <message>
        <source>Plan mode</source>
        <translation>Planmodus</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Rückgängig</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>Wiederholen</translation>
    </message>
    <message>
        <source>Save plan…</source>
        <translation>Plan speichern…</translation>
    </message>
    <message>
        <source>Save plan</source>
        <translation>Plan speichern</translation>
    </message>
    <message>
        <source>Plans (*.json)</source>
        <translation>Pläne (*.json)</translation>
    </message>
    <message>
        <source>Open plan…</source>
        <translation>Plan öffnen…</translation>
    </message>
    <message>
        <source>Open plan</source>
        <translation>Plan öffnen</translation>
    </message>
    <message>
        <source>Discard plan</source>
        <translation>Plan verwerfen</translation>
    </message>
    <message>
        <source>Apply plan</source>
        <translation>Plan anwenden</translation>
    </message>
    <message>
        <source>No space %1 in the map</source>
        <translation>Kein Space %1 in der Shard-Map</translation>
    </message>
    <message numerus="yes">
        <source>Move %n space(s) to %1</source>
        <translation>
            <numerusform>%n Space nach %1 verschieben</numerusform>
            <numerusform>%n Spaces nach %1 verschieben</numerusform>
        </translation>
    </message>
    <message>
        <source>Move spaces</source>
        <translation>Spaces verschieben</translation>
    </message>
    <message>
        <source>Spaces:</source>
        <translation>Spaces:</translation>
    </message>
    <message>
        <source>To shard:</source>
        <translation>Ziel-Shard:</translation>
    </message>
    <message>
        <source>Documents:</source>
        <translation>Dokumente:</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>Größe:</translation>
    </message>
    <message>
        <source>Expected duration:</source>
        <translation>Voraussichtliche Dauer:</translation>
    </message>
    <message>
        <source>Target after the move:</source>
        <translation>Ziel nach der Verschiebung:</translation>
    </message>
    <message>
        <source>%1 docs, %2%3</source>
        <translation>%1 Dokumente, %2%3</translation>
    </message>
    <message>
        <source> (%1% of its capacity)</source>
        <translation> (%1 % seiner Kapazität)</translation>
    </message>
    <message>
        <source>Why (recorded with the migration)</source>
        <translation>Begründung (wird mit der Migration gespeichert)</translation>
    </message>
    <message>
        <source>Reason:</source>
        <translation>Grund:</translation>
    </message>
    <message>
        <source>Queue migrations</source>
        <translation>Migrationen einreihen</translation>
    </message>
    <message>
        <source>Not connected to a shard map</source>
        <translation>Nicht mit einer Shard-Map verbunden</translation>
    </message>
    <message numerus="yes">
        <source>Queueing %n migration(s)…</source>
        <translation>
            <numerusform>%n Migration wird eingereiht…</numerusform>
            <numerusform>%n Migrationen werden eingereiht…</numerusform>
        </translation>
    </message>
    <message>
        <source>The map changed since the plan was drafted; nothing was queued:
%1</source>
        <translation>Die Shard-Map hat sich geändert, seit der Plan entworfen wurde; nichts wurde eingereiht:
%1</translation>
    </message>
    <message>
        <source>Queued %1; refused: %2</source>
        <translation>Eingereiht: %1; abgelehnt: %2</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>nichts</translation>
    </message>
    <message>
        <source>Queued %1</source>
        <translation>Eingereiht: %1</translation>
    </message>
    <message>
        <source>Select the spaces to move first</source>
        <translation>Wählen Sie zuerst die zu verschiebenden Spaces aus</translation>
    </message>
    <message numerus="yes">
        <source>Move %n space(s) to…</source>
        <translation>
            <numerusform>%n Space verschieben nach…</numerusform>
            <numerusform>%n Spaces verschieben nach…</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>Could not save the plan to %1: %2</source>
        <translation>Der Plan konnte nicht unter %1 gespeichert werden: %2</translation>
    </message>
    <message>
        <source>Plan saved to %1</source>
        <translation>Plan unter %1 gespeichert</translation>
    </message>
    <message>
        <source>Could not open %1: %2</source>
        <translation>%1 konnte nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>%1 is not a plan: %2</source>
        <translation>%1 ist kein Plan: %2</translation>
    </message>
    <message>
        <source>The map changed since this plan was drafted (revision %1):
%2</source>
        <translation>Die Shard-Map hat sich geändert, seit dieser Plan entworfen wurde (Revision %1):
%2</translation>
    </message>
    <message numerus="yes">
        <source>Plan with %n move(s) opened</source>
        <translation>
            <numerusform>Plan mit %n Verschiebung geöffnet</numerusform>
            <numerusform>Plan mit %n Verschiebungen geöffnet</numerusform>
        </translation>
    </message>
    <message>
        <source>The plan has no moves</source>
        <translation>Der Plan enthält keine Verschiebungen</translation>
    </message>
    <message>
        <source>plan drafted by %1</source>
        <translation>Plan entworfen von %1</translation>
    </message>
    <message>
        <source>Wizards</source>
        <translation>Assistenten</translation>
    </message>
    <message numerus="yes">
        <source>Plan with %n move(s) from the wizard: edit it, then apply</source>
        <translation>
            <numerusform>Plan mit %n Verschiebung aus dem Assistenten: bearbeiten, dann anwenden</numerusform>
            <numerusform>Plan mit %n Verschiebungen aus dem Assistenten: bearbeiten, dann anwenden</numerusform>
        </translation>
    </message>
    <message>
        <source>Drain %1…</source>
        <translation>%1 leeren…</translation>
    </message>
    <message>
        <source>Split %1…</source>
        <translation>%1 teilen…</translation>
    </message>
    <message>
        <source>Merge %1 into…</source>
        <translation>%1 zusammenführen mit…</translation>
    </message>
    <message>
        <source>unthrottled; no backfill rate measured yet on this fleet</source>
        <translation type="vanished">ungedrosselt; auf dieser Flotte wurde noch keine Backfill-Rate gemessen</translation>
    </message>
    <message>
        <source>about %1 at %2 docs/s (the default throttle)</source>
        <translation type="vanished">etwa %1 bei %2 Dok./s (die Standarddrosselung)</translation>
    </message>
    <message numerus="yes">
        <source>about %1 at %2 docs/s, the median of the last %n unthrottled migration(s)</source>
        <translation type="vanished">
            <numerusform>etwa %1 bei %2 Dok./s, dem Median der letzten ungedrosselten Migration</numerusform>
            <numerusform>etwa %1 bei %2 Dok./s, dem Median der letzten %n ungedrosselten Migrationen</numerusform>
        </translation>
    </message>
    <message>
        <source>about %1 at %2 docs/s per migration (%3)</source>
        <translation>etwa %1 bei %2 Dokumenten/s je Migration (%3)</translation>
    </message>
    <message>
        <source>From shard:</source>
        <translation>Von Shard:</translation>
    </message>
    <message>
        <source>From shards:</source>
        <translation>Von Shards:</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MigrationDetailDialog</name>
    <message>
        <source>Migration %1</source>
        <translation>Migration %1</translation>
    </message>
    <message>
        <source>Phases</source>
        <translation>Phasen</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>Durchsatz</translation>
    </message>
    <message>
        <source>Documents copied per second over time</source>
        <translation>Kopierte Dokumente pro Sekunde über die Zeit</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>Ereignisse</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>Ereignis</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Events of the migration</source>
        <translation>Ereignisse der Migration</translation>
    </message>
    <message>
        <source>Space:</source>
        <translation>Space:</translation>
    </message>
    <message>
        <source>Requested:</source>
        <translation>Angefordert:</translation>
    </message>
    <message>
        <source>Moving now:</source>
        <translation>Bewegt jetzt:</translation>
    </message>
    <message>
        <source>Phase:</source>
        <translation>Phase:</translation>
    </message>
    <message>
        <source>Status:</source>
        <translation>Status:</translation>
    </message>
    <message>
        <source>Error:</source>
        <translation>Fehler:</translation>
    </message>
    <message>
        <source>Throttle:</source>
        <translation>Drosselung:</translation>
    </message>
    <message>
        <source>Progress:</source>
        <translation>Fortschritt:</translation>
    </message>
    <message>
        <source>Requested by:</source>
        <translation>Angefordert von:</translation>
    </message>
    <message>
        <source>Reason:</source>
        <translation>Grund:</translation>
    </message>
    <message>
        <source>Operation:</source>
        <translation>Operation:</translation>
    </message>
    <message>
        <source>Queued:</source>
        <translation>Eingereiht:</translation>
    </message>
    <message>
        <source>Started:</source>
        <translation>Begonnen:</translation>
    </message>
    <message>
        <source>Ended:</source>
        <translation>Beendet:</translation>
    </message>
    <message>
        <source>Verification:</source>
        <translation>Prüfung:</translation>
    </message>
    <message>
        <source>Write hold:</source>
        <translation>Schreibsperre:</translation>
    </message>
    <message>
        <source>Not connected to a fleet.</source>
        <translation>Nicht mit einer Flotte verbunden.</translation>
    </message>
    <message>
        <source>The history of migration %1 could not be read: %2</source>
        <translation>Der Verlauf der Migration %1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>The executor has kept no history of this migration (cancelled before it started): no phases, throughput or events to show.</source>
        <translation>Der Executor hat keinen Verlauf dieser Migration (abgebrochen, bevor sie begann): keine Phasen, kein Durchsatz und keine Ereignisse zu zeigen.</translation>
    </message>
    <message>
        <source>Migration %1 of space %2</source>
        <translation>Migration %1 von Space %2</translation>
    </message>
    <message>
        <source>%1 (rolled back: the space went back)</source>
        <translation>%1 (zurückgenommen: der Space ging zurück)</translation>
    </message>
    <message>
        <source>%1 (%2 after it started)</source>
        <translation>%1 (%2 nach dem Beginn)</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>— (not cut over)</source>
        <translation>— (nicht umgeschaltet)</translation>
    </message>
    <message>
        <source>No backfill progress recorded yet: the executor keeps a sample every %1 while it copies.</source>
        <translation>Noch kein Fortschritt beim Nachfüllen aufgezeichnet: der Executor hält beim Kopieren alle %1 einen Messwert fest.</translation>
    </message>
    <message>
        <source>documents/s</source>
        <translation>Dokumente/s</translation>
    </message>
    <message>
        <source>%1 documents copied in %2, %3 docs/s on average.</source>
        <translation>%1 Dokumente in %2 kopiert, im Mittel %3 Dok./s.</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>%1 live documents, %2 tombstones, checksum %3</source>
        <translation>%1 lebende Dokumente, %2 Grabsteine, Prüfsumme %3</translation>
    </message>
    <message>
        <source>— (not compared yet)</source>
        <translation>— (noch nicht verglichen)</translation>
    </message>
    <message>
        <source>source and target equal</source>
        <translation>Quelle und Ziel gleich</translation>
    </message>
    <message>
        <source>source and target apart</source>
        <translation>Quelle und Ziel verschieden</translation>
    </message>
    <message numerus="yes">
        <source>%1 at %2 after %n comparison(s), %3 documents repaired</source>
        <translation>
            <numerusform>%1 um %2 nach %n Vergleich, %3 Dokumente repariert</numerusform>
            <numerusform>%1 um %2 nach %n Vergleichen, %3 Dokumente repariert</numerusform>
        </translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>Quelle: %1</translation>
    </message>
    <message>
        <source>Target: %1</source>
        <translation>Ziel: %1</translation>
    </message>
    <message>
        <source>%1 docs/s</source>
        <translation>%1 Dok./s</translation>
    </message>
    <message>
        <source>the executor&apos;s default, %1 docs/s</source>
        <translation>Vorgabe des Executors, %1 Dok./s</translation>
    </message>
    <message>
        <source>none (as fast as the nodes go)</source>
        <translation>keine (so schnell die Knoten können)</translation>
    </message>
    <message>
        <source>%1 of %2 documents, %3 of %4</source>
        <translation>%1 von %2 Dokumenten, %3 von %4</translation>
    </message>
    <message>
        <source>, %1 docs/s, %2 left</source>
        <translation>, %1 Dok./s, noch %2</translation>
    </message>
    <message>
        <source>docs/s</source>
        <translation>Dok./s</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n time(s), the last at %2)</source>
        <translation>
            <numerusform>%1 (%n-mal, zuletzt um %2)</numerusform>
            <numerusform>%1 (%n-mal, zuletzt um %2)</numerusform>
        </translation>
    </message>
    <message>
        <source>The backfill copied %1 documents at %2 docs/s, too quickly for a chart (the executor keeps a sample every %3).</source>
        <translation>Das Nachfüllen hat %1 Dokumente mit %2 Dokumenten/s kopiert, zu schnell für ein Diagramm (der Executor nimmt alle %3 eine Stichprobe).</translation>
    </message>
    <message>
        <source>The backfill copied %1 documents, too quickly for a chart (the executor keeps a sample every %2).</source>
        <translation>Das Nachfüllen hat %1 Dokumente kopiert, zu schnell für ein Diagramm (der Executor nimmt alle %2 eine Stichprobe).</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MigrationEventText</name>
    <message>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>retry</source>
        <translation>neuer Versuch</translation>
    </message>
    <message>
        <source>cutover aborted</source>
        <translation>Umschalten abgebrochen</translation>
    </message>
    <message>
        <source>repair</source>
        <translation>Reparatur</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <source>resumed</source>
        <translation>fortgesetzt</translation>
    </message>
    <message>
        <source>cancel requested</source>
        <translation>Abbruch angefordert</translation>
    </message>
    <message>
        <source>rollback requested</source>
        <translation>Rücknahme angefordert</translation>
    </message>
    <message>
        <source>rolled back</source>
        <translation>zurückgenommen</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>done</source>
        <translation>fertig</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MigrationsModel</name>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 (paused)</source>
        <translation>%1 (angehalten)</translation>
    </message>
    <message>
        <source>%1 (cancelling)</source>
        <translation>%1 (wird abgebrochen)</translation>
    </message>
    <message>
        <source>%1 (rolling back)</source>
        <translation>%1 (wird rückabgewickelt)</translation>
    </message>
    <message>
        <source>%1 (rolled back)</source>
        <translation>%1 (rückabgewickelt)</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1 docs/s</source>
        <translation>%1 Dok./s</translation>
    </message>
    <message>
        <source>Migration</source>
        <translation>Migration</translation>
    </message>
    <message>
        <source>Space</source>
        <translation>Space</translation>
    </message>
    <message>
        <source>Source → target</source>
        <translation>Quelle → Ziel</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>Phase</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Fortschritt</translation>
    </message>
    <message>
        <source>Docs</source>
        <translation>Dok.</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <source>Rate</source>
        <translation>Rate</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>Restzeit</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Gestartet</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Beendet</translation>
    </message>
    <message>
        <source>Requested by</source>
        <translation>Angefordert von</translation>
    </message>
    <message>
        <source>%1, rolled back</source>
        <translation>%1, zurückgenommen</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MigrationsPage</name>
    <message>
        <source>Pause</source>
        <translation>Anhalten</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Roll back</source>
        <translation>Rückabwickeln</translation>
    </message>
    <message>
        <source>Throttle</source>
        <translation>Drosseln</translation>
    </message>
    <message>
        <source>Paused %1.</source>
        <translation>%1 angehalten.</translation>
    </message>
    <message>
        <source>Resumed %1.</source>
        <translation>%1 fortgesetzt.</translation>
    </message>
    <message>
        <source>Asked to cancel %1.</source>
        <translation>Abbruch von %1 angefordert.</translation>
    </message>
    <message>
        <source>Asked to roll back %1.</source>
        <translation>Rückabwicklung von %1 angefordert.</translation>
    </message>
    <message>
        <source>Changed the throttle of %1.</source>
        <translation>Drosselung von %1 geändert.</translation>
    </message>
    <message>
        <source>All states</source>
        <translation>Alle Zustände</translation>
    </message>
    <message>
        <source>Queued</source>
        <translation>Eingereiht</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Laufend</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Abgeschlossen</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>Any time</source>
        <translation>Beliebiger Zeitraum</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>Letzte Stunde</translation>
    </message>
    <message>
        <source>Last 24 hours</source>
        <translation>Letzte 24 Stunden</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>Letzte 7 Tage</translation>
    </message>
    <message>
        <source>Space</source>
        <translation>Space</translation>
    </message>
    <message>
        <source>Shard (source or target)</source>
        <translation>Shard (Quelle oder Ziel)</translation>
    </message>
    <message>
        <source>Pause…</source>
        <translation>Anhalten…</translation>
    </message>
    <message>
        <source>Resume…</source>
        <translation>Fortsetzen…</translation>
    </message>
    <message>
        <source>Cancel…</source>
        <translation>Abbrechen…</translation>
    </message>
    <message>
        <source>Roll back…</source>
        <translation>Rückabwickeln…</translation>
    </message>
    <message>
        <source> docs/s</source>
        <translation> Dok./s</translation>
    </message>
    <message>
        <source>default rate</source>
        <translation>Standardrate</translation>
    </message>
    <message>
        <source>Set throttle…</source>
        <translation>Drosselung festlegen…</translation>
    </message>
    <message>
        <source>Concurrent migrations:</source>
        <translation>Gleichzeitige Migrationen:</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>kein Limit</translation>
    </message>
    <message>
        <source>Apply…</source>
        <translation>Übernehmen…</translation>
    </message>
    <message>
        <source>There is no migration %1 in the map.</source>
        <translation>In der Shard-Map gibt es keine Migration %1.</translation>
    </message>
    <message>
        <source>Migration %1 is %2 already.</source>
        <translation>Migration %1 ist bereits im Zustand „%2“.</translation>
    </message>
    <message>
        <source>Migration %1 is paused already.</source>
        <translation>Migration %1 ist bereits angehalten.</translation>
    </message>
    <message>
        <source>Migration %1 is not paused.</source>
        <translation>Migration %1 ist nicht angehalten.</translation>
    </message>
    <message>
        <source>Migration %1 is past its cutover; roll it back instead.</source>
        <translation>Migration %1 hat die Umschaltung bereits hinter sich; fordern Sie stattdessen eine Rückabwicklung an.</translation>
    </message>
    <message>
        <source>Migration %1 is being cancelled already.</source>
        <translation>Migration %1 wird bereits abgebrochen.</translation>
    </message>
    <message>
        <source>A rollback is possible after the cutover, while the rollback window is open; migration %1 is in phase %2.</source>
        <translation>Eine Rückabwicklung ist nach der Umschaltung möglich, solange das Rückabwicklungsfenster offen ist; Migration %1 ist in der Phase %2.</translation>
    </message>
    <message>
        <source>Migration %1 is being rolled back already.</source>
        <translation>Migration %1 wird bereits rückabgewickelt.</translation>
    </message>
    <message>
        <source>Select a migration first.</source>
        <translation>Wählen Sie zuerst eine Migration aus.</translation>
    </message>
    <message>
        <source>At most %1 migrations run at once now.</source>
        <translation>Jetzt laufen höchstens %1 Migrationen gleichzeitig.</translation>
    </message>
    <message>
        <source>Not connected to a fleet.</source>
        <translation>Nicht mit einer Flotte verbunden.</translation>
    </message>
    <message>
        <source>Migration %1: %2</source>
        <translation>Migration %1: %2</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>Abgelehnt: %1</translation>
    </message>
    <message>
        <source>Why (recorded in the audit log)</source>
        <translation>Begründung (wird im Prüfprotokoll festgehalten)</translation>
    </message>
    <message>
        <source>Reason:</source>
        <translation>Grund:</translation>
    </message>
    <message>
        <source>%1 migration %2 of space %3 (%4 → %5)?</source>
        <translation>%1: Migration %2 von Space %3 (%4 → %5)?</translation>
    </message>
    <message>
        <source>Let the executor run any number of migrations at once?</source>
        <translation>Soll der Executor beliebig viele Migrationen gleichzeitig ausführen?</translation>
    </message>
    <message>
        <source>Let the executor run at most %1 migrations at once?</source>
        <translation>Soll der Executor höchstens %1 Migrationen gleichzeitig ausführen?</translation>
    </message>
    <message>
        <source>Concurrent migrations</source>
        <translation>Gleichzeitige Migrationen</translation>
    </message>
    <message>
        <source>Migration %1 of space %2 finished.</source>
        <translation>Migration %1 von Space %2 abgeschlossen.</translation>
    </message>
    <message>
        <source>Migration %1 of space %2 failed: %3</source>
        <translation>Migration %1 von Space %2 fehlgeschlagen: %3</translation>
    </message>
    <message>
        <source>Migration %1 of space %2 was cancelled.</source>
        <translation>Migration %1 von Space %2 wurde abgebrochen.</translation>
    </message>
    <message>
        <source>Migration %1 of space %2 was cancelled: %3</source>
        <translation>Migration %1 von Space %2 wurde abgebrochen: %3</translation>
    </message>
    <message>
        <source>Shardmap migrations</source>
        <translation>Shardmap-Migrationen</translation>
    </message>
    <message>
        <source>Operation</source>
        <translation>Operation</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>Bericht exportieren…</translation>
    </message>
    <message>
        <source>A PDF, CSV or JSON report of the selected migrations, or of those the filters show</source>
        <translation>Ein PDF-, CSV- oder JSON-Bericht der ausgewählten Migrationen oder der vom Filter gezeigten</translation>
    </message>
    <message>
        <source>space contains &quot;%1&quot;</source>
        <translation>Space enthält „%1“</translation>
    </message>
    <message>
        <source>shard %1</source>
        <translation>Shard %1</translation>
    </message>
    <message>
        <source>operation %1</source>
        <translation>Operation %1</translation>
    </message>
    <message numerus="yes">
        <source>%n selected migration(s)</source>
        <translation>
            <numerusform>%n ausgewählte Migration</numerusform>
            <numerusform>%n ausgewählte Migrationen</numerusform>
        </translation>
    </message>
    <message>
        <source>All migrations</source>
        <translation>Alle Migrationen</translation>
    </message>
    <message>
        <source>The filters show no migrations to report.</source>
        <translation>Die Filter zeigen keine Migrationen für einen Bericht.</translation>
    </message>
    <message>
        <source>Migrations shown with the filter: %1</source>
        <translation>Migrationen mit dem Filter: %1</translation>
    </message>
    <message>
        <source>Operation %1</source>
        <translation>Operation %1</translation>
    </message>
    <message>
        <source>Export report of operation %1…</source>
        <translation>Bericht der Operation %1 exportieren…</translation>
    </message>
    <message>
        <source>Show only operation %1</source>
        <translation>Nur Operation %1 zeigen</translation>
    </message>
    <message>
        <source>Select one migration: actions take one at a time.</source>
        <translation>Eine Migration auswählen: Aktionen gelten jeweils für eine.</translation>
    </message>
    <message>
        <source>Details…</source>
        <translation>Details…</translation>
    </message>
    <message>
        <source>Details of %1…</source>
        <translation>Details von %1…</translation>
    </message>
    <message>
        <source>Select one migration to see its details.</source>
        <translation>Wählen Sie eine Migration, um ihre Details zu sehen.</translation>
    </message>
    <message>
        <source>Phases, throughput and events of %1</source>
        <translation>Phasen, Durchsatz und Ereignisse von %1</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::OverviewPage</name>
    <message>
        <source>Nodes up</source>
        <translation>Knoten erreichbar</translation>
    </message>
    <message>
        <source>Shards</source>
        <translation>Shards</translation>
    </message>
    <message>
        <source>Spaces</source>
        <translation>Spaces</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Fullest disk</source>
        <translation>Vollste Platte</translation>
    </message>
    <message>
        <source>Balancer</source>
        <translation>Balancer</translation>
    </message>
    <message>
        <source>Migrations</source>
        <translation>Migrationen</translation>
    </message>
    <message>
        <source>Executor</source>
        <translation>Executor</translation>
    </message>
    <message>
        <source>Store</source>
        <translation>Store</translation>
    </message>
    <message>
        <source>Needs attention</source>
        <translation>Braucht Aufmerksamkeit</translation>
    </message>
    <message>
        <source>Shard</source>
        <translation>Shard</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Queries/s</source>
        <translation>Abfragen/s</translation>
    </message>
    <message>
        <source>Writes/s</source>
        <translation>Schreibvorgänge/s</translation>
    </message>
    <message>
        <source>Growth 24 h</source>
        <translation>Wachstum 24 h</translation>
    </message>
    <message>
        <source>Hottest shards</source>
        <translation>Heißeste Shards</translation>
    </message>
    <message>
        <source>Space</source>
        <translation>Space</translation>
    </message>
    <message>
        <source>Hottest spaces</source>
        <translation>Heißeste Spaces</translation>
    </message>
    <message>
        <source>Fleet writes and searches</source>
        <translation>Schreibvorgänge und Suchen der Flotte</translation>
    </message>
    <message>
        <source>Fleet write and search rates over 24 hours</source>
        <translation>Schreib- und Suchraten der Flotte über 24 Stunden</translation>
    </message>
    <message>
        <source>Disk used</source>
        <translation>Belegte Platte</translation>
    </message>
    <message>
        <source>Fleet disk use over 24 hours</source>
        <translation>Plattenbelegung der Flotte über 24 Stunden</translation>
    </message>
    <message>
        <source>Writes and searches, 24 h</source>
        <translation>Schreibvorgänge und Suchen, 24 h</translation>
    </message>
    <message>
        <source>Disk used, 24 h</source>
        <translation>Belegte Platte, 24 h</translation>
    </message>
    <message>
        <source>Searches/s</source>
        <translation>Suchen/s</translation>
    </message>
    <message>
        <source>Not connected</source>
        <translation>Nicht verbunden</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Verbinde…</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>all reachable</source>
        <translation>alle erreichbar</translation>
    </message>
    <message numerus="yes">
        <source>%n unreachable</source>
        <translation>
            <numerusform>%n nicht erreichbar</numerusform>
            <numerusform>%n nicht erreichbar</numerusform>
        </translation>
    </message>
    <message>
        <source>tenants in the map</source>
        <translation>Mandanten in der Karte</translation>
    </message>
    <message>
        <source>live, on reachable nodes</source>
        <translation>lebend, auf erreichbaren Knoten</translation>
    </message>
    <message>
        <source>estimated, on reachable nodes</source>
        <translation>geschätzt, auf erreichbaren Knoten</translation>
    </message>
    <message>
        <source>%1, %2 free</source>
        <translation>%1, %2 frei</translation>
    </message>
    <message>
        <source>no figures yet</source>
        <translation>noch keine Zahlen</translation>
    </message>
    <message>
        <source>none running</source>
        <translation>keine laufend</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>startet</translation>
    </message>
    <message numerus="yes">
        <source>%n queued</source>
        <translation>
            <numerusform>%n eingereiht</numerusform>
            <numerusform>%n eingereiht</numerusform>
        </translation>
    </message>
    <message>
        <source>about %1 left</source>
        <translation>noch etwa %1</translation>
    </message>
    <message numerus="yes">
        <source>%n open, </source>
        <translation>
            <numerusform>%n offen, </numerusform>
            <numerusform>%n offen, </numerusform>
        </translation>
    </message>
    <message>
        <source>reading the leases…</source>
        <translation>lese die Leases…</translation>
    </message>
    <message>
        <source>no replica alive</source>
        <translation>kein Replikat lebt</translation>
    </message>
    <message numerus="yes">
        <source>%n replica(s) alive: </source>
        <translation>
            <numerusform>%n Replikat lebt: </numerusform>
            <numerusform>%n Replikate leben: </numerusform>
        </translation>
    </message>
    <message>
        <source>none</source>
        <translation>keiner</translation>
    </message>
    <message numerus="yes">
        <source>%n migration(s) wait for an executor</source>
        <translation>
            <numerusform>%n Migration wartet auf einen Executor</numerusform>
            <numerusform>%n Migrationen warten auf einen Executor</numerusform>
        </translation>
    </message>
    <message>
        <source>queued migrations would wait</source>
        <translation>eingereihte Migrationen würden warten</translation>
    </message>
    <message>
        <source>revision %1</source>
        <translation>Revision %1</translation>
    </message>
    <message>
        <source>Nothing needs attention.</source>
        <translation>Nichts braucht Aufmerksamkeit.</translation>
    </message>
    <message>
        <source>Critical: </source>
        <translation>Kritisch: </translation>
    </message>
    <message>
        <source>Warning: </source>
        <translation>Warnung: </translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>count, shard state</comment>
        <translation>%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>%n under-replicated (yellow)</source>
        <translation>
            <numerusform>%n unterrepliziert (gelb)</numerusform>
            <numerusform>%n unterrepliziert (gelb)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n without a serving copy (red)</source>
        <translation>
            <numerusform>%n ohne dienende Kopie (rot)</numerusform>
            <numerusform>%n ohne dienende Kopie (rot)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::PhaseTimeline</name>
    <message>
        <source>Phases</source>
        <translation>Phasen</translation>
    </message>
    <message>
        <source>%1 – %2 (%3)</source>
        <translation>%1 – %2 (%3)</translation>
    </message>
    <message>
        <source>since %1 (%2 so far)</source>
        <translation>seit %1 (bisher %2)</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>No phases recorded yet.</source>
        <translation>Noch keine Phasen aufgezeichnet.</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::PlanMovesModel</name>
    <message>
        <source>Space</source>
        <translation>Space</translation>
    </message>
    <message>
        <source>From</source>
        <translation>Von</translation>
    </message>
    <message>
        <source>To</source>
        <translation>Nach</translation>
    </message>
    <message>
        <source>Docs</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>On nodes</source>
        <translation>Auf Knoten</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::PlanWizard</name>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>Rebalance the fleet</source>
        <translation>Flotte ausgleichen</translation>
    </message>
    <message>
        <source>Fill new shards</source>
        <translation>Neue Shards füllen</translation>
    </message>
    <message>
        <source>Drain a shard</source>
        <translation>Shard leeren</translation>
    </message>
    <message>
        <source>Retire a node</source>
        <translation>Knoten stilllegen</translation>
    </message>
    <message>
        <source>Split a shard</source>
        <translation>Shard teilen</translation>
    </message>
    <message>
        <source>Merge two shards</source>
        <translation>Zwei Shards zusammenführen</translation>
    </message>
    <message>
        <source>Give a space its own shard</source>
        <translation>Einem Space einen eigenen Shard geben</translation>
    </message>
    <message>
        <source>Change index settings</source>
        <translation>Indexeinstellungen ändern</translation>
    </message>
    <message>
        <source>Builds a new shard with another index template for each shard chosen and moves its spaces there live; the old shards are retired when they are done.</source>
        <translation>Baut für jeden gewählten Shard einen neuen Shard mit einer anderen Indexvorlage und verschiebt seine Spaces im laufenden Betrieb dorthin; die alten Shards werden danach stillgelegt.</translation>
    </message>
    <message>
        <source>Moves spaces from shards above their share of bytes, docs and load to shards below it, until every shard is within the band.</source>
        <translation>Verschiebt Spaces von Shards über ihrem Anteil an Bytes, Dokumenten und Last auf Shards darunter, bis jeder Shard innerhalb des Bands liegt.</translation>
    </message>
    <message>
        <source>Fills shards up to their share, moving only from the fullest. Name existing empty shards by id, new ones as ID@NODE: they are created when the plan is queued.</source>
        <translation>Füllt Shards bis zu ihrem Anteil und nimmt dabei nur von den vollsten. Vorhandene leere Shards mit ihrer ID angeben, neue als ID@KNOTEN: Sie werden angelegt, wenn der Plan eingereiht wird.</translation>
    </message>
    <message>
        <source>Moves every space off the shard, spread over the others; the shard becomes draining.</source>
        <translation>Verschiebt jeden Space vom Shard, verteilt auf die anderen; der Shard wird geleert.</translation>
    </message>
    <message>
        <source>Moves every space off the node&apos;s shards to shards on other nodes; when they are done the node and its shards are retired.</source>
        <translation>Verschiebt jeden Space von den Shards des Knotens auf Shards anderer Knoten; danach werden der Knoten und seine Shards stillgelegt.</translation>
    </message>
    <message>
        <source>Creates a shard and moves about half of the shard&apos;s bytes there, the halves as even as the spaces allow.</source>
        <translation>Legt einen Shard an und verschiebt etwa die Hälfte der Bytes des Shards dorthin, die Hälften so gleich, wie die Spaces es erlauben.</translation>
    </message>
    <message>
        <source>Moves every space of the first shard into the second; the first is retired when they are done.</source>
        <translation>Verschiebt jeden Space des ersten Shards in den zweiten; danach wird der erste stillgelegt.</translation>
    </message>
    <message>
        <source>Moves one space to a new shard of its own and pins it there.</source>
        <translation>Verschiebt einen Space auf einen eigenen neuen Shard und pinnt ihn dort fest.</translation>
    </message>
    <message>
        <source>the executor&apos;s throttle</source>
        <translation>Drosselung des Executors</translation>
    </message>
    <message>
        <source>measured on recent migrations</source>
        <translation>gemessen an den letzten Migrationen</translation>
    </message>
    <message>
        <source>assumed: nothing measured yet</source>
        <translation>angenommen: noch nichts gemessen</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <source>Docs</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>Queries/s</source>
        <translation>Anfragen/s</translation>
    </message>
    <message>
        <source>Writes/s</source>
        <translation>Schreibvorgänge/s</translation>
    </message>
    <message>
        <source>Node disk</source>
        <translation>Knoten-Platte</translation>
    </message>
    <message>
        <source>What should change?</source>
        <translation>Was soll sich ändern?</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>Vorschau</translation>
    </message>
    <message>
        <source>Queue the plan</source>
        <translation>Plan einreihen</translation>
    </message>
    <message>
        <source>&amp;Queue</source>
        <translation>&amp;Einreihen</translation>
    </message>
    <message>
        <source>Why, for the audit log</source>
        <translation>Warum, für das Audit-Protokoll</translation>
    </message>
    <message>
        <source>&amp;Reason:</source>
        <translation>&amp;Grund:</translation>
    </message>
    <message>
        <source>Plan wizard</source>
        <translation>Plan-Assistent</translation>
    </message>
    <message>
        <source>&amp;Rebalance…</source>
        <translation>&amp;Ausgleichen…</translation>
    </message>
    <message>
        <source>&amp;Add shards…</source>
        <translation>Shards &amp;hinzufügen…</translation>
    </message>
    <message>
        <source>&amp;Drain a shard…</source>
        <translation>Shard &amp;leeren…</translation>
    </message>
    <message>
        <source>Re&amp;tire a node…</source>
        <translation>Knoten s&amp;tilllegen…</translation>
    </message>
    <message>
        <source>&amp;Split a shard…</source>
        <translation>Shard &amp;teilen…</translation>
    </message>
    <message>
        <source>&amp;Merge shards…</source>
        <translation>Shards &amp;zusammenführen…</translation>
    </message>
    <message>
        <source>&amp;Isolate a space…</source>
        <translation>Space &amp;isolieren…</translation>
    </message>
    <message>
        <source>Change inde&amp;x settings…</source>
        <translation>Inde&amp;xeinstellungen ändern…</translation>
    </message>
    <message>
        <source>&amp;Scenario:</source>
        <translation>&amp;Szenario:</translation>
    </message>
    <message>
        <source>S&amp;hard or node:</source>
        <translation type="vanished">S&amp;hard oder Knoten:</translation>
    </message>
    <message>
        <source>Sp&amp;ace or shards:</source>
        <translation type="vanished">Sp&amp;ace oder Shards:</translation>
    </message>
    <message>
        <source>&amp;New shard:</source>
        <translation type="vanished">&amp;Neuer Shard:</translation>
    </message>
    <message>
        <source>N&amp;ode of the new shard:</source>
        <translation>Kn&amp;oten des neuen Shards:</translation>
    </message>
    <message>
        <source>&amp;Into:</source>
        <translation type="vanished">&amp;In:</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>keine Grenze</translation>
    </message>
    <message>
        <source>&amp;Band:</source>
        <translation type="vanished">&amp;Band:</translation>
    </message>
    <message>
        <source>&amp;Most moves:</source>
        <translation>&amp;Höchstens Verschiebungen:</translation>
    </message>
    <message>
        <source>&amp;Refresh figures</source>
        <translation>Zahlen &amp;aktualisieren</translation>
    </message>
    <message>
        <source>&amp;Edit in plan mode</source>
        <translation>Im Planmodus &amp;bearbeiten</translation>
    </message>
    <message>
        <source>Space id</source>
        <translation>Space-ID</translation>
    </message>
    <message>
        <source>s9@n2, s10@n3, or empty shards by id</source>
        <translation>s9@n2, s10@n3 oder leere Shards per ID</translation>
    </message>
    <message>
        <source>(the same node)</source>
        <translation>(derselbe Knoten)</translation>
    </message>
    <message>
        <source>Not connected to a shard map</source>
        <translation>Nicht mit einer Shard-Map verbunden</translation>
    </message>
    <message>
        <source>Could not read the fleet&apos;s figures: %1</source>
        <translation>Die Zahlen der Flotte konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Plan mode edits moves between shards that exist; this plan creates shards</source>
        <translation>Der Planmodus bearbeitet Verschiebungen zwischen vorhandenen Shards; dieser Plan legt Shards an</translation>
    </message>
    <message>
        <source>Reading the fleet&apos;s figures…</source>
        <translation>Lese die Zahlen der Flotte…</translation>
    </message>
    <message>
        <source>Planning…</source>
        <translation>Plane…</translation>
    </message>
    <message>
        <source>The fleet is within the band: nothing to move.</source>
        <translation>Die Flotte liegt innerhalb des Bands: nichts zu verschieben.</translation>
    </message>
    <message>
        <source>No move would make the fleet more even.</source>
        <translation>Keine Verschiebung würde die Flotte ausgeglichener machen.</translation>
    </message>
    <message numerus="yes">
        <source>%n move(s): %1 and %2 docs to copy; about %3 at %4 docs/s per migration (%5).</source>
        <translation>
            <numerusform>%n Verschiebung: %1 und %2 Dokumente zu kopieren; etwa %3 bei %4 Dokumenten/s je Migration (%5).</numerusform>
            <numerusform>%n Verschiebungen: %1 und %2 Dokumente zu kopieren; etwa %3 bei %4 Dokumenten/s je Migration (%5).</numerusform>
        </translation>
    </message>
    <message>
        <source>At least %1 must move.</source>
        <translation>Mindestens %1 müssen verschoben werden.</translation>
    </message>
    <message>
        <source>%1: largest shard %2× the mean before, %3× after; spread %4 → %5.</source>
        <translation>%1: größter Shard vorher %2× der Mittelwert, nachher %3×; Streuung %4 → %5.</translation>
    </message>
    <message>
        <source>The plan could not be made: %1</source>
        <translation>Der Plan konnte nicht erstellt werden: %1</translation>
    </message>
    <message>
        <source>Warning: %1</source>
        <translation>Warnung: %1</translation>
    </message>
    <message>
        <source>Queueing…</source>
        <translation>Reihe ein…</translation>
    </message>
    <message>
        <source>Nothing was queued: %1</source>
        <translation>Nichts wurde eingereiht: %1</translation>
    </message>
    <message>
        <source>Queueing… wait for the store&apos;s answer.</source>
        <translation>Reihe ein… bitte auf die Antwort des Speichers warten.</translation>
    </message>
    <message>
        <source>
Go back to plan again.</source>
        <translation>
Gehen Sie zurück, um neu zu planen.</translation>
    </message>
    <message>
        <source>Queued, but the answer could not be read: %1</source>
        <translation>Eingereiht, aber die Antwort konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>S&amp;hard to drain:</source>
        <translation>Zu leerender S&amp;hard:</translation>
    </message>
    <message>
        <source>N&amp;ode to retire:</source>
        <translation>Stillzulegender K&amp;noten:</translation>
    </message>
    <message>
        <source>S&amp;hard to split:</source>
        <translation>Zu teilender S&amp;hard:</translation>
    </message>
    <message>
        <source>S&amp;hard to empty:</source>
        <translation>Aufzulösender S&amp;hard:</translation>
    </message>
    <message>
        <source>Sp&amp;ace to isolate:</source>
        <translation>Zu isolierender Sp&amp;ace:</translation>
    </message>
    <message>
        <source>Shards to rebuil&amp;d:</source>
        <translation>Neu aufzubauen&amp;de Shards:</translation>
    </message>
    <message>
        <source>Te&amp;mplate to build with:</source>
        <translation>Indexvorlage (&amp;m):</translation>
    </message>
    <message>
        <source>all, template:NAME, or shard ids</source>
        <translation>all, template:NAME oder Shard-IDs</translation>
    </message>
    <message>
        <source>Shards to &amp;fill:</source>
        <translation>Zu füllende S&amp;hards:</translation>
    </message>
    <message>
        <source>Ne&amp;w shard:</source>
        <translation>N&amp;euer Shard:</translation>
    </message>
    <message>
        <source>&amp;Into shard:</source>
        <translation>&amp;In Shard:</translation>
    </message>
    <message>
        <source>B&amp;and:</source>
        <translation>B&amp;and:</translation>
    </message>
    <message numerus="yes">
        <source>measured: the median of %n migration(s)</source>
        <translation>
            <numerusform>gemessen: der Median von %n Migration</numerusform>
            <numerusform>gemessen: der Median von %n Migrationen</numerusform>
        </translation>
    </message>
    <message>
        <source>assumed until %1 migrations that copied at least %2 docs are measured, %3 so far</source>
        <translation>angenommen, bis %1 Migrationen mit mindestens %2 Dokumenten gemessen sind, bisher %3</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::PreferencesDialog</name>
    <message>
        <source>Preferences</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Sprache:</translation>
    </message>
    <message>
        <source>The language changes at the next start of Shardmap.</source>
        <translation>Die Sprache ändert sich beim nächsten Start von Shardmap.</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Hell</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
    <message>
        <source>&amp;Theme:</source>
        <translation>&amp;Farbschema:</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::RecentConnections</name>
    <message>
        <source>no system keyring (%1)</source>
        <translation>kein Schlüsselbund des Systems (%1)</translation>
    </message>
    <message>
        <source>the system keyring refused it (%1)</source>
        <translation>der Schlüsselbund des Systems hat es abgelehnt (%1)</translation>
    </message>
    <message>
        <source>The password was not saved: %1.</source>
        <translation>Das Passwort wurde nicht gespeichert: %1.</translation>
    </message>
    <message>
        <source>No password is saved for this connection.</source>
        <translation>Für diese Verbindung ist kein Passwort gespeichert.</translation>
    </message>
    <message>
        <source>The password could not be read: %1.</source>
        <translation>Das Passwort konnte nicht gelesen werden: %1.</translation>
    </message>
    <message>
        <source>No recent connections</source>
        <translation>Keine zuletzt verwendeten Verbindungen</translation>
    </message>
    <message>
        <source>Clear Recent Connections</source>
        <translation>Liste der zuletzt verwendeten Verbindungen leeren</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ReportDocument</name>
    <message>
        <source>queued</source>
        <translation>wartend</translation>
    </message>
    <message>
        <source>dual write</source>
        <translation>doppeltes Schreiben</translation>
    </message>
    <message>
        <source>backfill</source>
        <translation>Nachfüllen</translation>
    </message>
    <message>
        <source>verify</source>
        <translation>Prüfen</translation>
    </message>
    <message>
        <source>cutover</source>
        <translation>Umschalten</translation>
    </message>
    <message>
        <source>cleanup</source>
        <translation>Aufräumen</translation>
    </message>
    <message>
        <source>done</source>
        <translation>fertig</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>documents/s</source>
        <translation>Dokumente/s</translation>
    </message>
    <message>
        <source>before (measured when queued)</source>
        <translation>vorher (gemessen beim Einreihen)</translation>
    </message>
    <message>
        <source>after (before plus what moved)</source>
        <translation>nachher (vorher plus Verschobenes)</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>nicht gemessen</translation>
    </message>
    <message>
        <source>all migrations</source>
        <translation>alle Migrationen</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>rolled back</source>
        <translation>zurückgerollt</translation>
    </message>
    <message>
        <source>running</source>
        <translation>laufend</translation>
    </message>
    <message>
        <source>equal</source>
        <translation>gleich</translation>
    </message>
    <message>
        <source>apart</source>
        <translation>verschieden</translation>
    </message>
    <message>
        <source>Operation %1: %2 of %3</source>
        <translation>Operation %1: %2 von %3</translation>
    </message>
    <message numerus="yes">
        <source>%n chosen migration(s)</source>
        <translation>
            <numerusform>%n ausgewählte Migration</numerusform>
            <numerusform>%n ausgewählte Migrationen</numerusform>
        </translation>
    </message>
    <message>
        <source>Migrations created from %1 to %2</source>
        <translation>Migrationen, erstellt von %1 bis %2</translation>
    </message>
    <message>
        <source>Migrations created since %1</source>
        <translation>Migrationen, erstellt seit %1</translation>
    </message>
    <message>
        <source>All migrations</source>
        <translation>Alle Migrationen</translation>
    </message>
    <message>
        <source>space %1</source>
        <translation>Space %1</translation>
    </message>
    <message>
        <source>shard %1</source>
        <translation>Shard %1</translation>
    </message>
    <message>
        <source>state %1</source>
        <translation>Zustand %1</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>Zusammenfassung</translation>
    </message>
    <message>
        <source>Migrations</source>
        <translation>Migrationen</translation>
    </message>
    <message>
        <source>Documents moved</source>
        <translation>Verschobene Dokumente</translation>
    </message>
    <message>
        <source>Data moved</source>
        <translation>Verschobene Daten</translation>
    </message>
    <message>
        <source>Total duration</source>
        <translation type="vanished">Gesamtdauer</translation>
    </message>
    <message>
        <source>Longest migration</source>
        <translation>Längste Migration</translation>
    </message>
    <message>
        <source>Copy time</source>
        <translation>Kopierzeit</translation>
    </message>
    <message>
        <source>%1 to copy and cut over (%2)</source>
        <translation>%1 für Kopieren und Umschalten (%2)</translation>
    </message>
    <message>
        <source>Rollback window</source>
        <translation>Rückabwicklungsfenster</translation>
    </message>
    <message>
        <source>up to %1 after the cutover, on the target already; not counted in the copy time</source>
        <translation>bis zu %1 nach der Umschaltung, schon auf dem Ziel; nicht in der Kopierzeit enthalten</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>Fenster</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Longest write hold</source>
        <translation>Längste Schreibsperre</translation>
    </message>
    <message>
        <source>Verification</source>
        <translation>Prüfung</translation>
    </message>
    <message>
        <source>%1 cut over with source and target equal, %2 apart</source>
        <translation>%1 umgeschaltet mit gleicher Quelle und Ziel, %2 verschieden</translation>
    </message>
    <message>
        <source>Repaired documents</source>
        <translation>Reparierte Dokumente</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message numerus="yes">
        <source>State: %1. Requested by %2 at %3; reason: %4. %n migration(s).</source>
        <translation>
            <numerusform>Zustand: %1. Angefordert von %2 am %3; Grund: %4. %n Migration.</numerusform>
            <numerusform>Zustand: %1. Angefordert von %2 am %3; Grund: %4. %n Migrationen.</numerusform>
        </translation>
    </message>
    <message>
        <source>Into %1.</source>
        <translation>Nach %1.</translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation>Fehler: %1</translation>
    </message>
    <message>
        <source>Shard</source>
        <translation>Shard</translation>
    </message>
    <message>
        <source>Docs before</source>
        <translation>Dokumente vorher</translation>
    </message>
    <message>
        <source>Docs after</source>
        <translation>Dokumente nachher</translation>
    </message>
    <message>
        <source>Data before</source>
        <translation>Daten vorher</translation>
    </message>
    <message>
        <source>Data after</source>
        <translation>Daten nachher</translation>
    </message>
    <message>
        <source>Spaces before</source>
        <translation>Spaces vorher</translation>
    </message>
    <message>
        <source>Spaces after</source>
        <translation>Spaces nachher</translation>
    </message>
    <message>
        <source>Who asked and why</source>
        <translation>Wer hat es angefordert und warum</translation>
    </message>
    <message>
        <source>Requested by</source>
        <translation>Angefordert von</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>Operation</source>
        <translation>Operation</translation>
    </message>
    <message numerus="yes">
        <source>and %n more</source>
        <translation>
            <numerusform>und %n weitere</numerusform>
            <numerusform>und %n weitere</numerusform>
        </translation>
    </message>
    <message>
        <source>Shardmap migration report</source>
        <translation>Shardmap-Migrationsbericht</translation>
    </message>
    <message>
        <source>Generated %1 from map revision %2</source>
        <translation>Erstellt %1 aus Map-Revision %2</translation>
    </message>
    <message>
        <source>Migration report</source>
        <translation>Migrationsbericht</translation>
    </message>
    <message>
        <source>No migrations in this scope.</source>
        <translation>Keine Migrationen in diesem Umfang.</translation>
    </message>
    <message>
        <source>From %1 to %2 (times in %3).</source>
        <translation>Von %1 bis %2 (Zeiten in %3).</translation>
    </message>
    <message>
        <source>Operations</source>
        <translation>Operationen</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>Zeitleiste</translation>
    </message>
    <message>
        <source>Backfill rate</source>
        <translation>Nachfüllrate</translation>
    </message>
    <message>
        <source>Page %1 of %2</source>
        <translation>Seite %1 von %2</translation>
    </message>
    <message>
        <source>Migration</source>
        <translation>Migration</translation>
    </message>
    <message>
        <source>Space</source>
        <translation type="vanished">Space</translation>
    </message>
    <message>
        <source>From → to</source>
        <translation>Von → nach</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Begonnen</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="vanished">Dauer</translation>
    </message>
    <message>
        <source>Write hold</source>
        <translation>Schreibsperre</translation>
    </message>
    <message>
        <source>Docs</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>Daten</translation>
    </message>
    <message>
        <source>Verified</source>
        <translation>Geprüft</translation>
    </message>
    <message>
        <source>Errors and events</source>
        <translation>Fehler und Ereignisse</translation>
    </message>
    <message>
        <source>No errors, retries, aborted cutovers or interventions.</source>
        <translation>Keine Fehler, Wiederholungen, abgebrochenen Umschaltungen oder Eingriffe.</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>Ereignis</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message numerus="yes">
        <source>%n more event(s) are in the JSON report.</source>
        <translation>
            <numerusform>%n weiteres Ereignis steht im JSON-Bericht.</numerusform>
            <numerusform>%n weitere Ereignisse stehen im JSON-Bericht.</numerusform>
        </translation>
    </message>
    <message>
        <source>Approved by %1 (%2) at %3 — asked by %4: %5</source>
        <translation>Genehmigt von %1 (%2) am %3 — angefordert von %4: %5</translation>
    </message>
    <message>
        <source>Approved by</source>
        <translation>Genehmigt von</translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation>Genehmigungen</translation>
    </message>
    <message>
        <source>It needed approval because %1. Approver&apos;s reason: %2. Made: %3.</source>
        <translation>Genehmigung nötig, weil %1. Grund der Genehmigung: %2. Ausgeführt: %3.</translation>
    </message>
    <message>
        <source>Migrations: %1.</source>
        <translation>Migrationen: %1.</translation>
    </message>
    <message>
        <source>Refused and expired requests</source>
        <translation>Abgelehnte und abgelaufene Anfragen</translation>
    </message>
    <message>
        <source>Asked at</source>
        <translation>Angefordert am</translation>
    </message>
    <message>
        <source>Asked by</source>
        <translation>Angefordert von</translation>
    </message>
    <message>
        <source>What</source>
        <translation>Was</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Refused by</source>
        <translation>Abgelehnt von</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>not decided in time</source>
        <translation>nicht rechtzeitig entschieden</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>abgelehnt</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>abgelaufen</translation>
    </message>
    <message>
        <source>Aborted cutovers</source>
        <translation>Abgebrochene Umschaltungen</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n time(s), the last at %2)</source>
        <translation>
            <numerusform>%1 (%n-mal, zuletzt um %2)</numerusform>
            <numerusform>%1 (%n-mal, zuletzt um %2)</numerusform>
        </translation>
    </message>
    <message>
        <source>Requests not made</source>
        <translation>Nicht ausgeführte Anfragen</translation>
    </message>
    <message>
        <source>Decided by</source>
        <translation>Entschieden von</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>offen</translation>
    </message>
    <message>
        <source>waiting for a second person</source>
        <translation>wartet auf eine zweite Person</translation>
    </message>
    <message>
        <source>approved, not made</source>
        <translation>genehmigt, nicht ausgeführt</translation>
    </message>
    <message>
        <source>approved at %1; no outcome was recorded</source>
        <translation>genehmigt um %1; kein Ergebnis aufgezeichnet</translation>
    </message>
    <message>
        <source>Migration, space</source>
        <translation>Migration, Space</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ReportExportDialog</name>
    <message>
        <source>Export migration report</source>
        <translation>Migrationsbericht exportieren</translation>
    </message>
    <message>
        <source>Reading the migrations…</source>
        <translation>Migrationen werden gelesen…</translation>
    </message>
    <message>
        <source>PDF document</source>
        <translation>PDF-Dokument</translation>
    </message>
    <message>
        <source>CSV (one row per migration)</source>
        <translation>CSV (eine Zeile pro Migration)</translation>
    </message>
    <message>
        <source>JSON (docs/REPORTS.md)</source>
        <translation>JSON (docs/REPORTS.md)</translation>
    </message>
    <message>
        <source>A4</source>
        <translation>A4</translation>
    </message>
    <message>
        <source>US Letter</source>
        <translation>US Letter</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>Format:</translation>
    </message>
    <message>
        <source>Paper:</source>
        <translation>Papier:</translation>
    </message>
    <message>
        <source>File:</source>
        <translation>Datei:</translation>
    </message>
    <message>
        <source>Preview…</source>
        <translation>Vorschau…</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Exportieren</translation>
    </message>
    <message>
        <source>Not connected to a shard map.</source>
        <translation>Nicht mit einer Shard-Map verbunden.</translation>
    </message>
    <message>
        <source>The report cannot be read: %1</source>
        <translation>Der Bericht kann nicht gelesen werden: %1</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n migration(s), as of %2.</source>
        <translation>
            <numerusform>%1: %n Migration, Stand %2.</numerusform>
            <numerusform>%1: %n Migrationen, Stand %2.</numerusform>
        </translation>
    </message>
    <message>
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Export the report to</source>
        <translation>Bericht exportieren nach</translation>
    </message>
    <message>
        <source>Writing %1…</source>
        <translation>%1 wird geschrieben…</translation>
    </message>
    <message numerus="yes">
        <source>Wrote the report of %n migration(s) to %1.</source>
        <translation>
            <numerusform>Bericht über %n Migration nach %1 geschrieben.</numerusform>
            <numerusform>Bericht über %n Migrationen nach %1 geschrieben.</numerusform>
        </translation>
    </message>
    <message>
        <source>The report was not written: %1</source>
        <translation>Der Bericht wurde nicht geschrieben: %1</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ReportPreviewDialog</name>
    <message>
        <source>Report preview</source>
        <translation>Berichtsvorschau</translation>
    </message>
    <message numerus="yes">
        <source>Laying out the report of %n migration(s)…</source>
        <translation>
            <numerusform>Bericht über %n Migration wird gesetzt…</numerusform>
            <numerusform>Bericht über %n Migrationen wird gesetzt…</numerusform>
        </translation>
    </message>
    <message>
        <source>of %1</source>
        <translation>von %1</translation>
    </message>
    <message numerus="yes">
        <source>%n page(s).</source>
        <translation>
            <numerusform>%n Seite.</numerusform>
            <numerusform>%n Seiten.</numerusform>
        </translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>Zurück</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>Weiter</translation>
    </message>
    <message>
        <source>Page</source>
        <translation>Seite</translation>
    </message>
    <message>
        <source>Zoom</source>
        <translation>Zoom</translation>
    </message>
    <message>
        <source>Fit width</source>
        <translation>Seitenbreite</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Print…</source>
        <translation>Drucken…</translation>
    </message>
    <message>
        <source>Save as PDF…</source>
        <translation>Als PDF speichern…</translation>
    </message>
    <message>
        <source>Report page</source>
        <translation>Berichtsseite</translation>
    </message>
    <message>
        <source>Printing…</source>
        <translation>Wird gedruckt…</translation>
    </message>
    <message numerus="yes">
        <source>Sent %n page(s) to the printer.</source>
        <translation>
            <numerusform>%n Seite an den Drucker gesendet.</numerusform>
            <numerusform>%n Seiten an den Drucker gesendet.</numerusform>
        </translation>
    </message>
    <message>
        <source>Printing failed: %1</source>
        <translation>Drucken fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Save the report as PDF</source>
        <translation>Bericht als PDF speichern</translation>
    </message>
    <message>
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <source>Writing %1…</source>
        <translation>%1 wird geschrieben…</translation>
    </message>
    <message>
        <source>Saved %1.</source>
        <translation>%1 gespeichert.</translation>
    </message>
    <message>
        <source>Saving failed: %1</source>
        <translation>Speichern fehlgeschlagen: %1</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ShardMapModel</name>
    <message>
        <source>Shard %1 on node %2 (%3)</source>
        <translation>Shard %1 auf Knoten %2 (%3)</translation>
    </message>
    <message>
        <source>Space %1: %2 docs, %3</source>
        <translation>Space %1: %2 Dokumente, %3</translation>
    </message>
    <message>
        <source>Space %1 (no figures yet)</source>
        <translation>Space %1 (noch keine Zahlen)</translation>
    </message>
    <message>
        <source>No space %1 in the map</source>
        <translation>Kein Space %1 in der Shard-Map</translation>
    </message>
    <message>
        <source>No shard %1 in the map</source>
        <translation>Kein Shard %1 in der Shard-Map</translation>
    </message>
    <message>
        <source>Space %1 is already on shard %2</source>
        <translation>Space %1 liegt bereits auf Shard %2</translation>
    </message>
    <message>
        <source>Shard %1 is draining</source>
        <translation>Shard %1 wird geleert</translation>
    </message>
    <message>
        <source>Shard %1 is readonly</source>
        <translation>Shard %1 ist schreibgeschützt</translation>
    </message>
    <message>
        <source>Shard %1 is retired</source>
        <translation>Shard %1 ist stillgelegt</translation>
    </message>
    <message>
        <source>The node of shard %1 is retired</source>
        <translation>Der Knoten von Shard %1 ist stillgelegt</translation>
    </message>
    <message>
        <source>Space %1 is pinned to another shard</source>
        <translation>Space %1 ist fest an einen anderen Shard gebunden</translation>
    </message>
    <message>
        <source>Space %1 is already migrating</source>
        <translation>Space %1 wird bereits migriert</translation>
    </message>
    <message>
        <source>Shard %1 is full: it would hold %2 docs, its limit is %3</source>
        <translation>Shard %1 ist voll: Er hätte dann %2 Dokumente, sein Limit liegt bei %3</translation>
    </message>
    <message>
        <source>Shard %1 is full: it would hold %2, its limit is %3</source>
        <translation>Shard %1 ist voll: Er hätte dann %2, sein Limit liegt bei %3</translation>
    </message>
    <message>
        <source>No spaces to move</source>
        <translation>Keine Spaces zum Verschieben</translation>
    </message>
    <message>
        <source>Drop the spaces on a shard&apos;s lane</source>
        <translation>Legen Sie die Spaces auf der Spur eines Shards ab</translation>
    </message>
    <message>
        <source>Only spaces can be moved onto a shard</source>
        <translation>Nur Spaces können auf einen Shard verschoben werden</translation>
    </message>
    <message>
        <source>Space %1 moved to %2 (%3) and is in its rollback window; it can move when its cleanup ends</source>
        <translation>Space %1 wurde nach %2 verschoben (%3) und ist im Rückabwicklungsfenster; er kann nach dem Aufräumen wieder verschoben werden</translation>
    </message>
    <message>
        <source>Space %1 moved to %2 (%3): %4; it can move after that</source>
        <translation>Space %1 wurde nach %2 verschoben (%3): %4; danach kann er wieder verschoben werden</translation>
    </message>
    <message>
        <source>Space %1 is already migrating to %2 (%3); wait for it to finish or cancel it first</source>
        <translation>Space %1 wird bereits nach %2 migriert (%3); warten Sie das Ende ab oder brechen Sie die Migration zuerst ab</translation>
    </message>
    <message>
        <source>Space %1 is already migrating (%2); wait for it to finish or cancel it first</source>
        <translation>Space %1 wird bereits migriert (%2); warten Sie das Ende ab oder brechen Sie die Migration zuerst ab</translation>
    </message>
    <message>
        <source>%1
Moved to %2: %3</source>
        <translation>%1
Verschoben nach %2: %3</translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation>%1; %2</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ShardMapView</name>
    <message>
        <source>%1 docs</source>
        <translation>%1 Dokumente</translation>
    </message>
    <message>
        <source>Node %1</source>
        <translation>Knoten %1</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message numerus="yes">
        <source>+%n small spaces</source>
        <translation>
            <numerusform>+%n kleiner Space</numerusform>
            <numerusform>+%n kleine Spaces</numerusform>
        </translation>
    </message>
    <message>
        <source>%1% now, %2% after moves</source>
        <translation>jetzt %1 %, nach den Verschiebungen %2 %</translation>
    </message>
    <message>
        <source>%1 now, %2 after moves (no limit)</source>
        <translation type="vanished">jetzt %1, nach den Verschiebungen %2 (kein Limit)</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>%1 ⇢ %2 (plan)</source>
        <translation>%1 ⇢ %2 (Plan)</translation>
    </message>
    <message>
        <source>%1% of its capacity</source>
        <translation>%1 % seiner Kapazität</translation>
    </message>
    <message numerus="yes">
        <source>Shard map: %n shard(s)</source>
        <translation>
            <numerusform>Shard-Map: %n Shard</numerusform>
            <numerusform>Shard-Map: %n Shards</numerusform>
        </translation>
    </message>
    <message>
        <source>%1% full</source>
        <translation>%1 % voll</translation>
    </message>
    <message>
        <source>%1 now, %2 after moves</source>
        <translation>%1 jetzt, %2 nach den Verschiebungen</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ShardPickerModel</name>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>node %1</source>
        <translation>Knoten %1</translation>
    </message>
    <message>
        <source>Shard %1 on node %2</source>
        <translation>Shard %1 auf Knoten %2</translation>
    </message>
    <message>
        <source>Node %1 and all of its shards</source>
        <translation>Knoten %1 mit allen seinen Shards</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::SimulationModel</name>
    <message>
        <source>n/a</source>
        <translation>k. A.</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1 (%2 %)</translation>
    </message>
    <message>
        <source>%1× (%2)</source>
        <translation>%1× (%2)</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Max/mean bytes</source>
        <translation>Max./Mittel Bytes</translation>
    </message>
    <message>
        <source>Stddev/mean</source>
        <translation>Stdabw./Mittel</translation>
    </message>
    <message>
        <source>Hottest shard (queries/s × mean)</source>
        <translation>Heißester Shard (Anfragen/s × Mittel)</translation>
    </message>
    <message numerus="yes">
        <source>Moved adding %n shard(s)</source>
        <translation>
            <numerusform>Verschoben beim Hinzufügen von %n Shard</numerusform>
            <numerusform>Verschoben beim Hinzufügen von %n Shards</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Moved removing %n shard(s)</source>
        <translation>
            <numerusform>Verschoben beim Entfernen von %n Shard</numerusform>
            <numerusform>Verschoben beim Entfernen von %n Shards</numerusform>
        </translation>
    </message>
    <message>
        <source>Moved from today&apos;s map</source>
        <translation>Verschoben gegenüber der heutigen Map</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::SpacesModel</name>
    <message>
        <source>%1/s</source>
        <translation>%1/s</translation>
    </message>
    <message>
        <source>%1 of the shard&apos;s bytes</source>
        <translation>%1 der Bytes des Shards</translation>
    </message>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>The space&apos;s share of the bytes on this shard</source>
        <translation>Anteil des Spaces an den Bytes dieses Shards</translation>
    </message>
    <message>
        <source>Space</source>
        <translation>Space</translation>
    </message>
    <message>
        <source>Docs</source>
        <translation>Dok.</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <source>Queries/s</source>
        <translation>Abfragen/s</translation>
    </message>
    <message>
        <source>Writes/s</source>
        <translation>Schreibvorgänge/s</translation>
    </message>
    <message>
        <source>Share of shard</source>
        <translation>Anteil am Shard</translation>
    </message>
    <message>
        <source>Shard</source>
        <translation>Shard</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::TimeSeriesChart</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>KiB</source>
        <translation>KiB</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>TiB</source>
        <translation>TiB</translation>
    </message>
    <message>
        <source>billions</source>
        <translation>Milliarden</translation>
    </message>
    <message>
        <source>millions</source>
        <translation>Millionen</translation>
    </message>
    <message>
        <source>thousands</source>
        <translation>Tausend</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>per second</source>
        <translation>pro Sekunde</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>ms</translation>
    </message>
    <message>
        <source>Could not write the image %1.</source>
        <translation>Das Bild %1 konnte nicht geschrieben werden.</translation>
    </message>
    <message>
        <source>Cannot export to %1: choose a file name ending in .png or .pdf.</source>
        <translation>Export nach %1 nicht möglich: Wählen Sie einen Dateinamen mit der Endung .png oder .pdf.</translation>
    </message>
    <message>
        <source>Could not write the PDF file %1.</source>
        <translation>Die PDF-Datei %1 konnte nicht geschrieben werden.</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::WhatIfPage</name>
    <message>
        <source>&amp;Simulate</source>
        <translation>&amp;Simulieren</translation>
    </message>
    <message>
        <source>of them grow</source>
        <translation>davon wachsen</translation>
    </message>
    <message>
        <source>&amp;Every space grows:</source>
        <translation>&amp;Jeder Space wächst:</translation>
    </message>
    <message>
        <source>The &amp;largest:</source>
        <translation>Die &amp;größten:</translation>
    </message>
    <message>
        <source>&amp;New spaces like today&apos;s:</source>
        <translation>&amp;Neue Spaces wie die heutigen:</translation>
    </message>
    <message>
        <source>remove</source>
        <translation>entfernen</translation>
    </message>
    <message>
        <source>Shards to &amp;add:</source>
        <translation>Shards &amp;hinzufügen:</translation>
    </message>
    <message>
        <source>Not connected to a shard map</source>
        <translation>Nicht mit einer Shard-Map verbunden</translation>
    </message>
    <message>
        <source>Reading the fleet&apos;s figures and simulating…</source>
        <translation>Lese die Zahlen der Flotte und simuliere…</translation>
    </message>
    <message>
        <source>The simulation failed: %1</source>
        <translation>Die Simulation ist fehlgeschlagen: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n space(s), %1 on %2 shard(s); adding shards moves at least %3 for an even share. Dynamic lookup (current, planner, load-aware) moves only what has to move; the hashes move every space whose computed shard changes.</source>
        <translation>
            <numerusform>%n Space, %1 auf %2 Shard(s); neue Shards erfordern mindestens %3 Verschiebung für einen gleichen Anteil. Dynamisches Nachschlagen (aktuell, Planer, lastbewusst) verschiebt nur, was verschoben werden muss; die Hashes verschieben jeden Space, dessen berechneter Shard sich ändert.</numerusform>
            <numerusform>%n Spaces, %1 auf %2 Shard(s); neue Shards erfordern mindestens %3 Verschiebung für einen gleichen Anteil. Dynamisches Nachschlagen (aktuell, Planer, lastbewusst) verschiebt nur, was verschoben werden muss; die Hashes verschieben jeden Space, dessen berechneter Shard sich ändert.</numerusform>
        </translation>
    </message>
    <message>
        <source>Largest shard over the mean (bytes)</source>
        <translation>Größter Shard im Verhältnis zum Mittel (Bytes)</translation>
    </message>
    <message>
        <source>max/mean</source>
        <translation>Max./Mittel</translation>
    </message>
    <message>
        <source>× mean</source>
        <translation>× Mittel</translation>
    </message>
    <message>
        <source>Data moved when shards change</source>
        <translation>Verschobene Daten bei geänderten Shards</translation>
    </message>
    <message numerus="yes">
        <source>adding %n shard(s)</source>
        <translation>
            <numerusform>%n Shard hinzufügen</numerusform>
            <numerusform>%n Shards hinzufügen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>removing %n shard(s)</source>
        <translation>
            <numerusform>%n Shard entfernen</numerusform>
            <numerusform>%n Shards entfernen</numerusform>
        </translation>
    </message>
    <message>
        <source>% of bytes</source>
        <translation>% der Bytes</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::keyring</name>
    <message>
        <source>no keyring service on the session bus</source>
        <translation>kein Schlüsselbund-Dienst auf dem Sitzungsbus</translation>
    </message>
    <message>
        <source>built without QtKeychain</source>
        <translation>ohne QtKeychain gebaut</translation>
    </message>
    <message>
        <source>no D-Bus session bus</source>
        <translation>kein D-Bus-Sitzungsbus</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::PlanNotes</name>
    <message>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <source>documents</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>Abfragen</translation>
    </message>
    <message>
        <source>writes</source>
        <translation>Schreibvorgänge</translation>
    </message>
    <message>
        <source>node disk</source>
        <translation>Knotenplatte</translation>
    </message>
    <message>
        <source>rebalance</source>
        <translation>Neuverteilung</translation>
    </message>
    <message>
        <source>fill new shard</source>
        <translation>neuen Shard füllen</translation>
    </message>
    <message>
        <source>%1 (%2 its share of %3)</source>
        <translation>%1 (%2 seines Anteils an %3)</translation>
    </message>
    <message>
        <source>%1: %2 holds %3 of its share of bytes, %4 %5</source>
        <translation>%1: %2 hält %3 seines Anteils an Bytes, %4 %5</translation>
    </message>
    <message>
        <source>drain %1</source>
        <translation>%1 leeren</translation>
    </message>
    <message>
        <source>retire node %1</source>
        <translation>Knoten %1 stilllegen</translation>
    </message>
    <message>
        <source>split %1: balanced halves</source>
        <translation>%1 teilen: ausgeglichene Hälften</translation>
    </message>
    <message>
        <source>merge %1 into %2</source>
        <translation>%1 mit %2 zusammenführen</translation>
    </message>
    <message>
        <source>isolate space %1 on shard %2</source>
        <translation>Space %1 auf Shard %2 isolieren</translation>
    </message>
    <message>
        <source>reindex %1 into %2 (template %3)</source>
        <translation>%1 in %2 neu indexieren (Vorlage %3)</translation>
    </message>
    <message>
        <source>shard %1 is dedicated to space %2 (isolated)</source>
        <translation>Shard %1 gehört Space %2 allein (isoliert)</translation>
    </message>
    <message>
        <source>shard %1 is dedicated to space %2 (larger than half a shard)</source>
        <translation>Shard %1 gehört Space %2 allein (größer als ein halber Shard)</translation>
    </message>
    <message>
        <source>node %1 did not report its free disk; its shards are left out of the plan</source>
        <translation>Knoten %1 hat seinen freien Plattenplatz nicht gemeldet; seine Shards bleiben im Plan außen vor</translation>
    </message>
    <message>
        <source>shard %1 is dedicated to space %2 (isolated); it receives no other space</source>
        <translation>Shard %1 gehört Space %2 allein (isoliert); er nimmt keinen anderen Space auf</translation>
    </message>
    <message>
        <source>shard %1 holds %2 spaces larger than half a shard; isolate all but one of them</source>
        <translation>Shard %1 hält %2 Spaces, die größer als ein halber Shard sind; isolieren Sie alle bis auf einen</translation>
    </message>
    <message>
        <source>the move budget (moves, bytes or hours) ran out before the fleet was balanced</source>
        <translation>das Budget (Verschiebungen, Bytes oder Stunden) war erschöpft, bevor die Flotte ausgeglichen war</translation>
    </message>
    <message>
        <source>the move budget ran out before every space left; plan again when these moves are done</source>
        <translation>das Budget war erschöpft, bevor jeder Space fort war; planen Sie erneut, wenn diese Verschiebungen fertig sind</translation>
    </message>
    <message>
        <source>no shard receives spaces</source>
        <translation>kein Shard nimmt Spaces auf</translation>
    </message>
    <message>
        <source>no shard can take space %1 (%2 bytes): %3</source>
        <translation>kein Shard kann Space %1 aufnehmen (%2 Bytes): %3</translation>
    </message>
    <message numerus="yes">
        <source>%n shard(s) remain outside the band after the plan: %1</source>
        <translation>
            <numerusform>%n Shard bleibt nach dem Plan außerhalb des Bands: %1</numerusform>
            <numerusform>%n Shards bleiben nach dem Plan außerhalb des Bands: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 and %n more</source>
        <translation>
            <numerusform>%1 und %n weiterer</numerusform>
            <numerusform>%1 und %n weitere</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>node %1 holds %n replica(s) (%2); the executor makes each again on another node before the node retires</source>
        <translation>
            <numerusform>Knoten %1 hält %n Replikat (%2); der Executor legt es auf einem anderen Knoten neu an, bevor der Knoten stillgelegt wird</numerusform>
            <numerusform>Knoten %1 hält %n Replikate (%2); der Executor legt jedes auf einem anderen Knoten neu an, bevor der Knoten stillgelegt wird</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more shard(s) hold less than the limit; plan again once this merge is done</source>
        <translation>
            <numerusform>%n weiterer Shard hält weniger als das Limit; planen Sie erneut, wenn diese Zusammenführung fertig ist</numerusform>
            <numerusform>%n weitere Shards halten weniger als das Limit; planen Sie erneut, wenn diese Zusammenführung fertig ist</numerusform>
        </translation>
    </message>
    <message>
        <source>space %1 is in its rollback window after moving to %2 (%3); it can move once the window closes</source>
        <translation>Space %1 ist nach dem Verschieben nach %2 (%3) im Rückabwicklungsfenster; er kann verschoben werden, sobald das Fenster schließt</translation>
    </message>
    <message>
        <source>space %1 is in its rollback window after moving to %2 (%3) until %4; it can move then</source>
        <translation>Space %1 ist nach dem Verschieben nach %2 (%3) bis %4 im Rückabwicklungsfenster; danach kann er wieder verschoben werden</translation>
    </message>
    <message>
        <source>shard %1 keeps the rollback copy of %2 (%3)</source>
        <translation>Shard %1 hält die Kopie von %2 für die Rückabwicklung (%3)</translation>
    </message>
    <message>
        <source>shard %1 keeps the rollback copy of %2 (%3, until %4)</source>
        <translation>Shard %1 hält die Kopie von %2 für die Rückabwicklung (%3, bis %4)</translation>
    </message>
    <message numerus="yes">
        <source>the merge of %1 can run once the rollback window(s) close</source>
        <translation>
            <numerusform>das Zusammenführen von %1 kann laufen, sobald das Rückabwicklungsfenster schließt</numerusform>
            <numerusform>das Zusammenführen von %1 kann laufen, sobald die Rückabwicklungsfenster schließen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>retiring node %1 can run once the rollback window(s) close</source>
        <translation>
            <numerusform>das Stilllegen von Knoten %1 kann laufen, sobald das Rückabwicklungsfenster schließt</numerusform>
            <numerusform>das Stilllegen von Knoten %1 kann laufen, sobald die Rückabwicklungsfenster schließen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the merge of %1 can run once the rollback window(s) close (%2)</source>
        <translation>
            <numerusform>das Zusammenführen von %1 kann laufen, sobald das Rückabwicklungsfenster schließt (%2)</numerusform>
            <numerusform>das Zusammenführen von %1 kann laufen, sobald die Rückabwicklungsfenster schließen (%2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>retiring node %1 can run once the rollback window(s) close (%2)</source>
        <translation>
            <numerusform>das Stilllegen von Knoten %1 kann laufen, sobald das Rückabwicklungsfenster schließt (%2)</numerusform>
            <numerusform>das Stilllegen von Knoten %1 kann laufen, sobald die Rückabwicklungsfenster schließen (%2)</numerusform>
        </translation>
    </message>
    <message>
        <source>space %1 has just moved to %2 (%3); it can move again once the old copy is removed</source>
        <translation>Space %1 wurde gerade nach %2 verschoben (%3); er kann wieder verschoben werden, sobald die alte Kopie entfernt ist</translation>
    </message>
    <message>
        <source>space %1 is already migrating (%2); wait for it to finish or cancel it first</source>
        <translation>Space %1 wird bereits migriert (%2); warten Sie das Ende ab oder brechen Sie die Migration zuerst ab</translation>
    </message>
    <message numerus="yes">
        <source>and %n more</source>
        <translation>
            <numerusform>und %n weiterer</numerusform>
            <numerusform>und %n weitere</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::MigrationsSummary</name>
    <message>
        <source>%1–%2</source>
        <translation>%1–%2</translation>
    </message>
    <message numerus="yes">
        <source>%n done (rollback possible until %1)</source>
        <translation>
            <numerusform>%n fertig (Rückabwicklung möglich bis %1)</numerusform>
            <numerusform>%n fertig (Rückabwicklung möglich bis %1)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 % copied</source>
        <translation>%1 % kopiert</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>startet</translation>
    </message>
    <message numerus="yes">
        <source>%n queued</source>
        <translation>
            <numerusform>%n eingereiht</numerusform>
            <numerusform>%n eingereiht</numerusform>
        </translation>
    </message>
    <message>
        <source>about %1 left</source>
        <translation>noch etwa %1</translation>
    </message>
    <message numerus="yes">
        <source>%n removing the old copy</source>
        <translation>
            <numerusform>%n entfernt die alte Kopie</numerusform>
            <numerusform>%n entfernen die alte Kopie</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n active</source>
        <translation>
            <numerusform>%n aktiv</numerusform>
            <numerusform>%n aktiv</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n done</source>
        <translation>
            <numerusform>%n fertig</numerusform>
            <numerusform>%n fertig</numerusform>
        </translation>
    </message>
    <message>
        <source>none running</source>
        <translation>keine laufend</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::CopiesModel</name>
    <message>
        <source>in sync</source>
        <translation>synchron</translation>
    </message>
    <message>
        <source>catching up</source>
        <translation>holt auf</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>verloren</translation>
    </message>
    <message>
        <source>primary</source>
        <translation>Primär</translation>
    </message>
    <message>
        <source>replica</source>
        <translation>Replik</translation>
    </message>
    <message>
        <source>%1 of %2 documents</source>
        <translation>%1 von %2 Dokumenten</translation>
    </message>
    <message>
        <source>%1 (since %2)</source>
        <translation>%1 (seit %2)</translation>
    </message>
    <message>
        <source>Shard</source>
        <translation>Shard</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Zone</source>
        <translation>Zone</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>Rolle</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Catch-up</source>
        <translation>Aufholen</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>Grund</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::CopiesPanel</name>
    <message>
        <source>Add replica…</source>
        <translation>Replik hinzufügen…</translation>
    </message>
    <message>
        <source>Remove replica…</source>
        <translation>Replik entfernen…</translation>
    </message>
    <message>
        <source>Promote…</source>
        <translation>Zum Primär machen…</translation>
    </message>
    <message>
        <source>Replication factor…</source>
        <translation>Replikationsfaktor…</translation>
    </message>
    <message numerus="yes">
        <source>Node %1 holds %n copy(s).</source>
        <translation>
            <numerusform>Knoten %1 hält %n Kopie.</numerusform>
            <numerusform>Knoten %1 hält %n Kopien.</numerusform>
        </translation>
    </message>
    <message>
        <source>Shard %1: %2</source>
        <translation>Shard %1: %2</translation>
    </message>
    <message>
        <source>Choose a shard to change its copies.</source>
        <translation>Wählen Sie einen Shard, um seine Kopien zu ändern.</translation>
    </message>
    <message>
        <source>No node may hold another copy of shard %1 (each node holds one already, or is lost, retired or in the zone of a copy).</source>
        <translation>Kein Knoten darf eine weitere Kopie von Shard %1 halten (jeder hält schon eine oder ist verloren, stillgelegt oder in der Zone einer Kopie).</translation>
    </message>
    <message>
        <source>Select a replica of shard %1 first.</source>
        <translation>Wählen Sie zuerst eine Replik von Shard %1.</translation>
    </message>
    <message>
        <source>Only an in-sync replica can become the primary: the copy on %1 is %2.</source>
        <translation>Nur eine synchrone Replik kann Primär werden: die Kopie auf %1 ist %2.</translation>
    </message>
    <message>
        <source>gone</source>
        <translation>fort</translation>
    </message>
    <message>
        <source>Add replica</source>
        <translation>Replik hinzufügen</translation>
    </message>
    <message>
        <source>Node for a new copy of shard %1:</source>
        <translation>Knoten für eine neue Kopie von Shard %1:</translation>
    </message>
    <message>
        <source>Add a replica of shard %1 on node %2? It catches up from the primary, then serves.</source>
        <translation>Eine Replik von Shard %1 auf Knoten %2 hinzufügen? Sie holt vom Primär auf und dient dann.</translation>
    </message>
    <message>
        <source>Remove shard %1&apos;s replica on node %2? Its documents on that node are dropped.</source>
        <translation>Die Replik von Shard %1 auf Knoten %2 entfernen? Ihre Dokumente auf diesem Knoten werden gelöscht.</translation>
    </message>
    <message>
        <source>Make node %2&apos;s copy the primary of shard %1? Every space&apos;s epoch moves on and the old primary is fenced; it catches up as a replica.</source>
        <translation>Die Kopie auf Knoten %2 zum Primär von Shard %1 machen? Die Epoche jedes Space rückt vor und der alte Primär wird abgeschirmt; er holt als Replik auf.</translation>
    </message>
    <message>
        <source>Replication factor</source>
        <translation>Replikationsfaktor</translation>
    </message>
    <message>
        <source>Copies shard %1 wants, the primary included (0: the fleet&apos;s):</source>
        <translation>Kopien, die Shard %1 haben soll, der Primär eingeschlossen (0: der Wert der Flotte):</translation>
    </message>
    <message>
        <source>Shard %1 wants %2 copies from now on?</source>
        <translation>Soll Shard %1 ab jetzt %2 Kopien haben?</translation>
    </message>
    <message>
        <source>Replica of shard %1 on node %2 added: it catches up.</source>
        <translation>Replik von Shard %1 auf Knoten %2 hinzugefügt: sie holt auf.</translation>
    </message>
    <message>
        <source>Replica of shard %1 on node %2 removed.</source>
        <translation>Replik von Shard %1 auf Knoten %2 entfernt.</translation>
    </message>
    <message>
        <source>Node %2 holds shard %1&apos;s primary now.</source>
        <translation>Knoten %2 hält jetzt den Primär von Shard %1.</translation>
    </message>
    <message>
        <source>Shard %1 wants %2 copies now.</source>
        <translation>Shard %1 soll jetzt %2 Kopien haben.</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>Abgelehnt: %1</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ReasonDialog</name>
    <message>
        <source>Why (recorded in the audit log)</source>
        <translation>Warum (im Audit-Log festgehalten)</translation>
    </message>
    <message>
        <source>Reason:</source>
        <translation>Grund:</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::IndexSettingsPage</name>
    <message>
        <source>Index templates say what shards' indexes are built with. A template is never changed in place: a change is its next version, and shards take it when they are rebuilt (Change index settings).</source>
        <translation>Indexvorlagen legen fest, womit die Indizes der Shards gebaut werden. Eine Vorlage wird nie an Ort und Stelle geändert: eine Änderung ist ihre nächste Version, und Shards übernehmen sie, wenn sie neu aufgebaut werden (Indexeinstellungen ändern).</translation>
    </message>
    <message>
        <source>Template</source>
        <translation>Vorlage</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>Tokenizer</translation>
    </message>
    <message>
        <source>Fields</source>
        <translation>Felder</translation>
    </message>
    <message>
        <source>Prefixes</source>
        <translation>Präfixe</translation>
    </message>
    <message>
        <source>Shards</source>
        <translation>Shards</translation>
    </message>
    <message>
        <source>New &amp;version…</source>
        <translation>Neue &amp;Version…</translation>
    </message>
    <message>
        <source>New &amp;template…</source>
        <translation>Neue Vorl&amp;age…</translation>
    </message>
    <message>
        <source>&amp;Rebuild shards with it…</source>
        <translation>Shards damit neu auf&amp;bauen…</translation>
    </message>
    <message>
        <source>%1 (stored only)</source>
        <translation>%1 (nur gespeichert)</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>no description</source>
        <translation>keine Beschreibung</translation>
    </message>
    <message>
        <source>%1: %2
Shards built with it: %3</source>
        <translation>%1: %2
Damit gebaute Shards: %3</translation>
    </message>
    <message>
        <source>default is built in: make a new template</source>
        <translation>default ist eingebaut: legen Sie eine neue Vorlage an</translation>
    </message>
    <message>
        <source>Index template %1 created.</source>
        <translation>Indexvorlage %1 angelegt.</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::TemplateEditor</name>
    <message>
        <source>New index template</source>
        <translation>Neue Indexvorlage</translation>
    </message>
    <message>
        <source>New version of template %1</source>
        <translation>Neue Version der Vorlage %1</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>&amp;Description:</source>
        <translation>&amp;Beschreibung:</translation>
    </message>
    <message>
        <source>&amp;Reason (for the audit):</source>
        <translation>&amp;Grund (für das Audit):</translation>
    </message>
    <message>
        <source>&amp;Create</source>
        <translation>&amp;Anlegen</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>Feld</translation>
    </message>
    <message>
        <source>Indexed</source>
        <translation>Indiziert</translation>
    </message>
    <message>
        <source>Weight</source>
        <translation>Gewicht</translation>
    </message>
    <message>
        <source>&amp;Add field</source>
        <translation>Feld &amp;hinzufügen</translation>
    </message>
    <message>
        <source>Remo&amp;ve field</source>
        <translation>Feld ent&amp;fernen</translation>
    </message>
    <message>
        <source>Case counts (trigram)</source>
        <translation>Groß-/Kleinschreibung zählt (Trigramm)</translation>
    </message>
    <message>
        <source>e.g. 2, 3 (empty: none)</source>
        <translation>z. B. 2, 3 (leer: keine)</translation>
    </message>
    <message>
        <source>&amp;Tokenizer:</source>
        <translation>&amp;Tokenizer:</translation>
    </message>
    <message>
        <source>Remove diacr&amp;itics:</source>
        <translation>Dia&amp;kritika entfernen:</translation>
    </message>
    <message>
        <source>Toke&amp;n characters:</source>
        <translation>Wortzei&amp;chen:</translation>
    </message>
    <message>
        <source>&amp;Prefix indexes:</source>
        <translation>&amp;Präfixindizes:</translation>
    </message>
    <message>
        <source>A weight or a prefix length is not a number.</source>
        <translation>Ein Gewicht oder eine Präfixlänge ist keine Zahl.</translation>
    </message>
    <message>
        <source>Say why, for the audit.</source>
        <translation>Geben Sie einen Grund für das Audit an.</translation>
    </message>
    <message>
        <source>No change from the template it starts from.</source>
        <translation>Keine Änderung gegenüber der Ausgangsvorlage.</translation>
    </message>
    <message>
        <source>Asking the nodes which spaces hold documents in the removed fields…</source>
        <translation>Die Knoten werden gefragt, welche Spaces Dokumente in den entfernten Feldern haben …</translation>
    </message>
    <message>
        <source>Documents in the removed fields:
%1</source>
        <translation>Dokumente in den entfernten Feldern:
%1</translation>
    </message>
    <message>
        <source>Changes:
%1</source>
        <translation>Änderungen:
%1</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>Abgelehnt: %1</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::BalancerPage</name>
    <message>
        <source>%1 (no limit)</source>
        <translation>%1 (ohne Grenze)</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>When</source>
        <translation>Wann</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Begründung</translation>
    </message>
    <message>
        <source>Operation or approval</source>
        <translation>Operation oder Freigabe</translation>
    </message>
    <message>
        <source>&amp;Change policy…</source>
        <translation>Regeln ä&amp;ndern…</translation>
    </message>
    <message>
        <source>Cannot read the balancer&apos;s records: %1</source>
        <translation>Die Einträge des Balancers lassen sich nicht lesen: %1</translation>
    </message>
    <message>
        <source>Balancer %1: %2</source>
        <translation>Balancer %1: %2</translation>
    </message>
    <message>
        <source>Window: any time.</source>
        <translation>Zeitfenster: jederzeit.</translation>
    </message>
    <message>
        <source>Window: open now.</source>
        <translation>Zeitfenster: jetzt offen.</translation>
    </message>
    <message>
        <source>Window: opens %1.</source>
        <translation>Zeitfenster: öffnet %1.</translation>
    </message>
    <message>
        <source>Spent in this window: %1 moves, %2.</source>
        <translation>In diesem Zeitfenster verbraucht: %1 Verschiebungen, %2.</translation>
    </message>
    <message>
        <source>Hysteresis %1; at most %2 operations at once.</source>
        <translation>Hysterese %1; höchstens %2 Operationen gleichzeitig.</translation>
    </message>
    <message>
        <source>Waiting for approval %1 (the Approvals page).</source>
        <translation>Wartet auf Freigabe %1 (Seite Freigaben).</translation>
    </message>
    <message>
        <source>%1 (%2 evaluations, the last %3)</source>
        <translation>%1 (%2 Auswertungen, die letzte %3)</translation>
    </message>
    <message>
        <source>Changing the balancer&apos;s policy is an admin&apos;s change</source>
        <translation>Die Regeln des Balancers ändert nur ein Admin</translation>
    </message>
    <message>
        <source>The balancer&apos;s policy is set.</source>
        <translation>Die Regeln des Balancers sind gesetzt.</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::ChangeOutcome</name>
    <message>
        <source>Refused: %1</source>
        <translation>Abgelehnt: %1</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::BalancerPolicyDialog</name>
    <message>
        <source>Change the balancer&apos;s policy</source>
        <translation>Regeln des Balancers ändern</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>Regeln</translation>
    </message>
    <message>
        <source>Why (recorded in the audit log)</source>
        <translation>Begründung (wird im Prüfprotokoll festgehalten)</translation>
    </message>
    <message>
        <source>&amp;Reason:</source>
        <translation>&amp;Grund:</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Speichern</translation>
    </message>
    <message>
        <source>A valid policy: mode %1.</source>
        <translation>Gültige Regeln: Modus %1.</translation>
    </message>
    <message>
        <source>Not a valid policy: %1</source>
        <translation>Keine gültigen Regeln: %1</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::BackupsPage</name>
    <message>
        <source>running (%1 of %2 shards)</source>
        <translation>läuft (%1 von %2 Shards)</translation>
    </message>
    <message>
        <source>verified %1</source>
        <translation>geprüft %1</translation>
    </message>
    <message>
        <source>corrupt: %1</source>
        <translation>beschädigt: %1</translation>
    </message>
    <message>
        <source>on demand only</source>
        <translation>nur auf Anfrage</translation>
    </message>
    <message>
        <source>every %1</source>
        <translation>alle %1</translation>
    </message>
    <message>
        <source>all kept</source>
        <translation>alle behalten</translation>
    </message>
    <message>
        <source>the newest %1 kept</source>
        <translation>die neuesten %1 behalten</translation>
    </message>
    <message>
        <source>none older than %1</source>
        <translation>keine älter als %1</translation>
    </message>
    <message>
        <source>Snapshot</source>
        <translation>Snapshot</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Begonnen</translation>
    </message>
    <message>
        <source>Took</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Shards copied</source>
        <translation>Kopierte Shards</translation>
    </message>
    <message>
        <source>Asked by</source>
        <translation>Angefordert von</translation>
    </message>
    <message>
        <source>&amp;Take a snapshot now…</source>
        <translation>&amp;Jetzt einen Snapshot erstellen …</translation>
    </message>
    <message>
        <source>&amp;Verify…</source>
        <translation>&amp;Prüfen …</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>&amp;Löschen …</translation>
    </message>
    <message>
        <source>No snapshot repository is set: name one in the fleet&apos;s settings (shardmapctl migrations settings --snapshot-repository DIR) to take snapshots.</source>
        <translation>Kein Snapshot-Repository festgelegt: Nennen Sie eines in den Einstellungen der Flotte (shardmapctl migrations settings --snapshot-repository DIR), um Snapshots zu erstellen.</translation>
    </message>
    <message>
        <source>Repository: %1 — %2.</source>
        <translation>Repository: %1 — %2.</translation>
    </message>
    <message>
        <source>Cannot read the snapshots: %1</source>
        <translation>Die Snapshots können nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>schedule</source>
        <translation>Zeitplan</translation>
    </message>
    <message>
        <source>Deleting a snapshot is an admin&apos;s change</source>
        <translation>Einen Snapshot zu löschen ist eine Änderung für Administratoren</translation>
    </message>
    <message>
        <source>%1, asked by %2: %3</source>
        <translation>%1, angefordert von %2: %3</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Take a snapshot</source>
        <translation>Snapshot erstellen</translation>
    </message>
    <message>
        <source>Verify snapshot</source>
        <translation>Snapshot prüfen</translation>
    </message>
    <message>
        <source>Delete snapshot</source>
        <translation>Snapshot löschen</translation>
    </message>
    <message>
        <source>Copy every shard and the map into the repository now?</source>
        <translation>Jetzt jeden Shard und die Karte in das Repository kopieren?</translation>
    </message>
    <message>
        <source>Read every file of snapshot %1 back and check its hash?</source>
        <translation>Jede Datei von Snapshot %1 zurücklesen und ihren Hash prüfen?</translation>
    </message>
    <message>
        <source>Delete snapshot %1? Its files go, except those later snapshots reference.</source>
        <translation>Snapshot %1 löschen? Seine Dateien werden entfernt, außer denen, auf die spätere Snapshots verweisen.</translation>
    </message>
    <message>
        <source>Snapshot requested: the executor&apos;s leader takes it now.</source>
        <translation>Snapshot angefordert: Der Leiter des Executors erstellt ihn jetzt.</translation>
    </message>
    <message>
        <source>Verification of %1 requested.</source>
        <translation>Prüfung von %1 angefordert.</translation>
    </message>
    <message>
        <source>Deletion of %1 requested.</source>
        <translation>Löschen von %1 angefordert.</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>Abgelehnt: %1</translation>
    </message>
    <message>
        <source>&amp;Restore a space…</source>
        <translation>Einen Space &amp;wiederherstellen …</translation>
    </message>
    <message>
        <source>Restore of %1 queued: follow it on the Migrations page.</source>
        <translation>Wiederherstellung von %1 eingereiht: Verfolgen Sie sie auf der Seite Migrationen.</translation>
    </message>
    <message>
        <source>Restore a s&amp;hard…</source>
        <translation>Einen &amp;Shard wiederherstellen …</translation>
    </message>
    <message>
        <source>Restoring a shard is an admin&apos;s change</source>
        <translation>Einen Shard wiederherzustellen ist eine Änderung für Administratoren</translation>
    </message>
    <message>
        <source>Shard %1 restored on %2; writes after the snapshot are lost.</source>
        <translation>Shard %1 auf %2 wiederhergestellt; Schreibvorgänge nach dem Snapshot sind verloren.</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::RestoreSpaceDialog</name>
    <message>
        <source>Restore a space from %1</source>
        <translation>Einen Space aus %1 wiederherstellen</translation>
    </message>
    <message>
        <source>empty: its own id, replacing its documents</source>
        <translation>leer: die eigene ID, ihre Dokumente werden ersetzt</translation>
    </message>
    <message>
        <source>Why (recorded in the audit log)</source>
        <translation>Begründung (wird im Prüfprotokoll festgehalten)</translation>
    </message>
    <message>
        <source>&amp;Space:</source>
        <translation>&amp;Space:</translation>
    </message>
    <message>
        <source>&amp;Into shard:</source>
        <translation>&amp;In Shard:</translation>
    </message>
    <message>
        <source>As &amp;new id:</source>
        <translation>Als &amp;neue ID:</translation>
    </message>
    <message>
        <source>&amp;Reason:</source>
        <translation>&amp;Grund:</translation>
    </message>
    <message>
        <source>Res&amp;tore</source>
        <translation>&amp;Wiederherstellen</translation>
    </message>
    <message>
        <source>Cannot read the snapshot&apos;s manifest: %1</source>
        <translation>Das Manifest des Snapshots kann nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>Abgelehnt: %1</translation>
    </message>
    <message>
        <source>%1 documents then, %2 now on %3: they are replaced at the cutover onto %4. Writes since the snapshot are lost; until the cutover the space serves as it is.</source>
        <translation>%1 Dokumente damals, %2 jetzt auf %3: Sie werden beim Umschalten auf %4 ersetzt. Schreibvorgänge seit dem Snapshot gehen verloren; bis zum Umschalten bedient der Space weiter wie bisher.</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>%1 documents then; made as space %2 on %3, beside the live space.</source>
        <translation>%1 Dokumente damals; als Space %2 auf %3 angelegt, neben dem laufenden Space.</translation>
    </message>
    <message>
        <source>Replacing a space&apos;s documents is an admin&apos;s change</source>
        <translation>Die Dokumente eines Space zu ersetzen ist eine Änderung für Administratoren</translation>
    </message>
</context>
<context>
    <name>shardmap::widgets::RestoreShardDialog</name>
    <message>
        <source>Restore a shard from %1</source>
        <translation>Einen Shard aus %1 wiederherstellen</translation>
    </message>
    <message>
        <source>Why (recorded in the audit log)</source>
        <translation>Begründung (wird im Prüfprotokoll festgehalten)</translation>
    </message>
    <message>
        <source>&amp;Shard:</source>
        <translation>&amp;Shard:</translation>
    </message>
    <message>
        <source>Onto &amp;node:</source>
        <translation>Auf &amp;Knoten:</translation>
    </message>
    <message>
        <source>&amp;Reason:</source>
        <translation>&amp;Grund:</translation>
    </message>
    <message>
        <source>Res&amp;tore</source>
        <translation>&amp;Wiederherstellen</translation>
    </message>
    <message>
        <source>No shard has lost every copy: a shard with a live copy is promoted, not restored, and a single space comes back with Restore a space.</source>
        <translation>Kein Shard hat alle Kopien verloren: Ein Shard mit einer lebenden Kopie wird befördert, nicht wiederhergestellt, und ein einzelner Space kommt mit „Einen Space wiederherstellen“ zurück.</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>Abgelehnt: %1</translation>
    </message>
    <message>
        <source>Placing a shard is an admin&apos;s change</source>
        <translation>Einen Shard zu platzieren ist eine Änderung für Administratoren</translation>
    </message>
</context>
</TS>
