#!/usr/bin/env python3
"""Sums the chaos runs' JSON summaries (SHARDMAP_CHAOS_SUMMARY) of a soak into Markdown.

    soak_summary.py DIR ELAPSED_SECONDS
"""
import glob
import json
import statistics
import sys
from collections import Counter

directory, elapsed = sys.argv[1], float(sys.argv[2])
runs = [json.load(open(path)) for path in sorted(glob.glob(f"{directory}/*-seed*.json"))]
migrations = Counter()
faults = Counter()
missed = Counter()
writes = Counter()
for run in runs:
    migrations.update(run.get("migrations", {}))
    writes.update(run.get("writes", {}))
    for fault in run.get("faults", []):
        (faults if fault["happened"] else missed)[fault["kind"]] += 1
chaos_hours = sum(run["seconds"] for run in runs) / 3600 or 1
gaps = [run["write_gap_ms"] for run in runs]
print(f"# Soak summary\n\n{len(runs)} chaos runs ({', '.join(sorted({r['store'] for r in runs}))}), "
      f"seeds {min((r['seed'] for r in runs), default=0)}–{max((r['seed'] for r in runs), default=0)}, "
      f"{elapsed / 3600:.2f} h wall clock, {chaos_hours:.2f} h under chaos.\n")
print("| | |\n|---|---|")
print(f"| migrations | {sum(migrations.values())} ({', '.join(f'{k} {v}' for k, v in sorted(migrations.items()))}) |")
print(f"| migrations per hour under faults | {sum(migrations.values()) / chaos_hours:.0f} |")
print(f"| faults injected (all checked to have happened) | {sum(faults.values())} "
      f"({', '.join(f'{k} {v}' for k, v in sorted(faults.items()))}) |")
print(f"| faults that did not happen | {sum(missed.values())} |")
print(f"| write calls / items checked | {writes['calls']} / {writes['items_acknowledged']} |")
print(f"| equal-version races / replays / ghost deletes / large writes | {writes['races']} / {writes['replays']} / "
      f"{writes['ghost_deletes']} / {writes['big_writes']} |")
print(f"| anomalies (answers contradicting versions) | {sum(r['anomalies'] for r in runs)} |")
print(f"| invariant checks / violations | {sum(r['invariant_checks'] for r in runs)} / "
      f"{sum(r['violations'] for r in runs)} |")
if gaps:
    print(f"| longest write gap per space, ms: median of run p50 / max of run p99 / max | "
          f"{statistics.median(g['p50'] for g in gaps):.1f} / {max(g['p99'] for g in gaps):.1f} / "
          f"{max(g['max'] for g in gaps):.0f} |")
