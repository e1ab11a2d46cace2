#!/usr/bin/env bash
# The long migration fault soak: every fault scenario of tests/integration/migration_faults_test.cpp
# over many seeds (the seed picks the workload and where in the backfill the kills land).
#
#   scripts/soak.sh [FIRST_SEED] [LAST_SEED]      (default 1 50; build dir: $BUILD_DIR or build/ci)
#
# Stops at the first failing seed and says how to re-run it alone.
set -euo pipefail
cd "$(dirname "$0")/.."
first=${1:-1}
last=${2:-50}
build=${BUILD_DIR:-build/ci}
if [[ ! -x "$build/tests/integration/integration_tests" ]]; then
    cmake --preset ci >/dev/null
    cmake --build --preset ci --target integration_tests
fi
for seed in $(seq "$first" "$last"); do
    echo "== seed $seed"
    if ! SHARDMAP_FAULT_SEED=$seed "$build/tests/integration/integration_tests" \
        --gtest_filter='Faults/MigrationFaultTest.*' --gtest_brief=1; then
        echo "seed $seed failed; re-run with:"
        echo "  SHARDMAP_FAULT_SEED=$seed $build/tests/integration/integration_tests --gtest_filter='Faults/MigrationFaultTest.*'"
        exit 1
    fi
done
echo "all seeds $first..$last passed"
