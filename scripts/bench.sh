#!/usr/bin/env bash
# Builds the benchmarks in Release and runs them with the parameters documented in
# docs/BENCHMARKS.md. Extra arguments go to node_e2e_bench, e.g.:
#   scripts/bench.sh --docs 1000000 --json
#   scripts/bench.sh --target 127.0.0.1:7400        # load a running node instead of starting one
# Environment: BUILD_DIR (default build/bench), SKIP_CORE=1 skips the Google Benchmark
# micro-benchmarks, SKIP_MIGRATION=1 skips migration_bench (live migrations, about 2.5 minutes),
# MIGRATION_ARGS adds arguments to it (e.g. MIGRATION_ARGS="--cutovers 10 --json"), RUN_SPLIT=1 runs
# split_latency_bench too (seed 002's table, about 3 minutes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build="${BUILD_DIR:-build/bench}"
# Core only and no tests: the benchmarks need neither Qt nor GTest, and configure faster without.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDMAP_CORE_ONLY=ON -DSHARDMAP_BUILD_TESTS=OFF
cmake --build "$build" --target node_e2e_bench core_benchmarks planner_benchmarks migration_bench split_latency_bench \
    shardmap-node shardmapd

if [ "${SKIP_CORE:-0}" != "1" ]; then
    echo "== core_benchmarks"
    "$build/bench/core_benchmarks"
    echo
    echo "== planner_benchmarks"
    "$build/bench/planner_benchmarks"
    echo
fi
echo "== node_e2e_bench"
"$build/bench/node_e2e_bench" "$@"
if [ "${SKIP_MIGRATION:-0}" != "1" ]; then
    echo
    echo "== migration_bench"
    # shellcheck disable=SC2086 # MIGRATION_ARGS is a list of arguments
    "$build/bench/migration_bench" ${MIGRATION_ARGS:-}
fi
if [ "${RUN_SPLIT:-0}" = "1" ]; then
    echo
    echo "== split_latency_bench"
    "$build/bench/split_latency_bench"
fi
