#!/usr/bin/env bash
# Builds the four Debian packages (shardmap, shardmap-node, shardmapd, shardmapctl) from a
# Release build installed under /usr, checks them with lintian, and leaves them in dist/.
#
#   scripts/package.sh            (build dir: build/package; output: dist/)
#
# Needs what packaging/debian-packages.txt lists (scripts/install-deps.sh installs it).
# docs/PACKAGING.md says what is in each package and how to install them.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset package
cmake --build --preset package -j "$(nproc)"
rm -rf dist && mkdir -p dist
cpack --config build/package/CPackConfig.cmake -B dist
rm -rf dist/_CPack_Packages
ls -l dist/*.deb
lintian --fail-on error --no-tag-display-limit dist/*.deb
echo "packages in dist/ (lintian: no errors)"
