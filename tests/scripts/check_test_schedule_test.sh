#!/usr/bin/env bash
# Every test that tests/schedule/schedule.cmake names is one ctest knows.
#   check_test_schedule_test.sh SCHEDULE BUILD_DIR
set -euo pipefail
schedule="$1"
build="$2"
known=$(ctest --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p')
missing=0
while read -r name; do
    if ! grep -qxF -- "$name" <<<"$known"; then
        echo "schedule.cmake names \"$name\", which is not a test (renamed or removed?)"
        missing=1
    fi
done < <(grep -oE '^  "[^"]+"' "$schedule" | sed -E 's/^  "(.*)"$/\1/' | sort -u)
[ "$missing" -eq 0 ] && echo "every scheduled test exists"
exit "$missing"
