#!/usr/bin/env bash
# The long soak of the migration engine (issue 14): the chaos harness of
# tests/integration/chaos_test.cpp (random-time faults, adversarial writers, invariants checked
# while it runs) over seed after seed on both stores until the time is up, each seed followed by
# the copies chaos harness (tests/integration/copies_chaos_test.cpp, issue 30: a node lost, a
# primary partitioned, a replica's disk full) and the fault scenarios of
# migration_faults_test.cpp over the same seed; writes a summary (of the migration chaos runs).
#
#   scripts/soak.sh [HOURS] [FIRST_SEED]     (default 1 hour from seed 1; build dir: $BUILD_DIR
#                                             or build/ci; summary dir: $SOAK_DIR or soak-<date>)
#
# Each chaos run lasts $CHAOS_SECONDS (default 60). Stops at the first failing run and says how
# to re-run it alone; the summary (summary.md, and one JSON per run) is written either way.
set -euo pipefail
cd "$(dirname "$0")/.."
hours=${1:-1}
seed=${2:-1}
build=${BUILD_DIR:-build/ci}
out=${SOAK_DIR:-soak-$(date -u +%Y%m%dT%H%M%SZ)}
seconds=${CHAOS_SECONDS:-60}
mkdir -p "$out"
if [[ ! -x "$build/tests/integration/chaos_tests" ]]; then
    cmake --preset ci >/dev/null
    cmake --build --preset ci --target chaos_tests integration_tests
fi
summarize() { python3 scripts/soak_summary.py "$out" "$1" > "$out/summary.md"; cat "$out/summary.md"; }
end=$(( $(date +%s) + $(python3 -c "print(int(float('$hours') * 3600))") ))
started=$(date +%s)
while (( $(date +%s) < end )); do
    echo "== chaos seed $seed (both stores, ${seconds} s each)"
    if ! SHARDMAP_CHAOS_SEEDS=$seed SHARDMAP_CHAOS_SECONDS=$seconds SHARDMAP_CHAOS_SUMMARY="$out" \
        "$build/tests/integration/chaos_tests" --gtest_filter='Chaos/*' --gtest_brief=1 \
        > "$out/chaos-seed$seed.log" 2>&1; then
        echo "chaos seed $seed failed (log: $out/chaos-seed$seed.log); re-run with:"
        echo "  SHARDMAP_CHAOS_SEEDS=$seed SHARDMAP_CHAOS_SECONDS=$seconds SHARDMAP_KEEP_TEST_DIRS=1 $build/tests/integration/chaos_tests --gtest_filter='Chaos/*'"
        summarize $(( $(date +%s) - started ))
        exit 1
    fi
    if ! SHARDMAP_COPIES_CHAOS_SEEDS=$seed SHARDMAP_CHAOS_SECONDS=$seconds \
        "$build/tests/integration/chaos_tests" --gtest_filter='CopiesChaos/*' --gtest_brief=1 \
        > "$out/copies-chaos-seed$seed.log" 2>&1; then
        echo "copies chaos seed $seed failed (log: $out/copies-chaos-seed$seed.log); re-run with:"
        echo "  SHARDMAP_COPIES_CHAOS_SEEDS=$seed SHARDMAP_CHAOS_SECONDS=$seconds SHARDMAP_KEEP_TEST_DIRS=1 $build/tests/integration/chaos_tests --gtest_filter='CopiesChaos/*'"
        summarize $(( $(date +%s) - started ))
        exit 1
    fi
    if ! SHARDMAP_FAULT_SEED=$seed "$build/tests/integration/integration_tests" \
        --gtest_filter='Faults/MigrationFaultTest.*' --gtest_brief=1 > "$out/faults-seed$seed.log" 2>&1; then
        echo "fault scenarios failed at seed $seed (log: $out/faults-seed$seed.log); re-run with:"
        echo "  SHARDMAP_FAULT_SEED=$seed $build/tests/integration/integration_tests --gtest_filter='Faults/MigrationFaultTest.*'"
        summarize $(( $(date +%s) - started ))
        exit 1
    fi
    seed=$((seed + 1))
done
summarize $(( $(date +%s) - started ))
