#!/usr/bin/env bash
# Builds the four Debian packages (shardmap, shardmap-node, shardmapd, shardmapctl) from a
# Release build installed under /usr, checks them with lintian, and leaves them in dist/.
#
#   scripts/package.sh            (build dir: build/package; output: dist/)
#   scripts/package.sh --configure-only DIR   (only the configure step, into DIR: the packages
#                                              test checks the compile flags it gives)
#
# Needs what packaging/debian-packages.txt lists (scripts/install-deps.sh installs it).
# docs/PACKAGING.md says what is in each package and how to install them.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's compiler and linker flags, as dpkg-buildflags gives them to Debian's own packages, with
# every hardening feature (fortify, stack protector, format checks, relro, BIND_NOW); -g is left
# out, the binaries being stripped.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all DEB_CXXFLAGS_MAINT_STRIP=-g
configure() {
    cmake --preset package -B "$1" \
        -DCMAKE_CXX_FLAGS="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS)" \
        -DCMAKE_EXE_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)"
}
if [ "${1:-}" = "--configure-only" ]; then
    configure "$2"
    exit 0
fi
configure build/package
cmake --build --preset package -j "$(nproc)"
rm -rf dist && mkdir -p dist
cpack --config build/package/CPackConfig.cmake -B dist
rm -rf dist/_CPack_Packages
ls -l dist/*.deb
lintian --fail-on error --no-tag-display-limit dist/*.deb
echo "packages in dist/ (lintian: no errors)"
