#!/usr/bin/env bash
# Tests scripts/check-build-deps.sh (issue 15) against a configured build directory:
#   the repository paths its comments name exist;
#   positive: with packaging/debian-packages.txt as it is, the check passes;
#   negative: with a copy of the list minus libqt6opengl6-dev -- the package whose absence broke
#             a fresh Debian 12 build -- the check fails and names libqt6opengl6-dev.
# Usage: tests/scripts/check_build_deps_test.sh BUILD_DIR
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
check="$here/scripts/check-build-deps.sh"
list="$here/packaging/debian-packages.txt"
build="${1:?usage: $0 BUILD_DIR}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The repository paths the list's comments name exist (a moved file leaves a comment pointing
# nowhere).
for path in $(grep -o '#.*' "$list" | grep -oE '(docs|packaging|scripts|tests)/[A-Za-z0-9_./*-]+' | sed 's/\.$//' | sort -u); do
    compgen -G "$here/$path" >/dev/null || fail "packaging/debian-packages.txt names $path, which does not exist"
done
echo "ok: the paths named in packaging/debian-packages.txt exist"

# Positive: the real list covers everything the build uses.
if ! bash "$check" "$build" >"$tmp/pos.out" 2>&1; then
    cat "$tmp/pos.out" >&2
    fail "check-build-deps.sh fails with packaging/debian-packages.txt"
fi
grep -q '^check-build-deps: .* all in the Depends closure of ' "$tmp/pos.out" \
    || { cat "$tmp/pos.out" >&2; fail "no success summary line"; }
echo "ok: passes with packaging/debian-packages.txt"

# Negative: drop libqt6opengl6-dev and the check must fail naming it.
grep -vE '^[[:space:]]*libqt6opengl6-dev([[:space:]#]|$)' "$list" >"$tmp/packages.txt" || true
if cmp -s "$list" "$tmp/packages.txt"; then
    fail "packaging/debian-packages.txt has no libqt6opengl6-dev line to remove"
fi
status=0
SHARDMAP_PACKAGE_LIST="$tmp/packages.txt" bash "$check" "$build" >"$tmp/neg.out" 2>&1 || status=$?
if [ "$status" -ne 1 ]; then
    cat "$tmp/neg.out" >&2
    fail "expected exit status 1 without libqt6opengl6-dev, got $status"
fi
grep -qE '^  libqt6opengl6-dev  \(needed by /' "$tmp/neg.out" \
    || { cat "$tmp/neg.out" >&2; fail "failure output does not name libqt6opengl6-dev"; }
grep -q 'Add each package above to' "$tmp/neg.out" \
    || { cat "$tmp/neg.out" >&2; fail "failure output does not say to add the package to the list"; }
echo "ok: fails naming libqt6opengl6-dev when it is dropped from the list"
