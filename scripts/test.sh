#!/usr/bin/env bash
# Installs what is missing, builds everything with warnings as errors and runs every test.
# This is the README's test command and exactly what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
export QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
cmake --preset ci
bash scripts/check-build-deps.sh build/ci
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci
