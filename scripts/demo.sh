#!/usr/bin/env bash
# Installs what is missing, builds, and runs the demo: `shardmap --demo` starts three local shard
# nodes (two shards each), a shard map in an SQLite store in a temporary directory, shardmapd
# serving the router, and a load generator writing documents of forty tenants (Zipf-sized) and
# searching through the router, then opens the Qt console on that fleet. Quitting the console
# stops every process it started (and they die with it if it crashes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target shardmap-node shardmapd shardmapctl shardmap

console=build/release/app/console/shardmap
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}${QT_QPA_PLATFORM:-}" ]; then
    cat >&2 <<HELP
demo: built, but the console needs a display and none was found (DISPLAY and WAYLAND_DISPLAY are unset).
  - Run this script again from a desktop session (or ssh -X), or
  - run the fleet without a window: QT_QPA_PLATFORM=offscreen $console --demo
    (it prints the router address and the shard map URI; try build/release/app/ctl/shardmapctl
    with SHARDMAP_STORE set to that URI; Ctrl-C stops everything).
HELP
    exit 1
fi
echo "demo: starting the console with a demo fleet; quitting it stops the fleet"
exec "$console" --demo "$@"
