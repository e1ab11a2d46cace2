#!/usr/bin/env bash
# docs/ARCHITECTURE.md's table of targets and layers names every folder of product code (issue 28),
# so that a folder added to core/, widgets/ or app/ is placed in a layer where the next engineer
# looks for it.
#   check_architecture_table_test.sh SOURCE_DIR
set -euo pipefail
cd "$1"
table=$(awk '/^## Targets and layers/ { in_section = 1 } in_section && /^```/ { fence++; next }
             in_section && fence == 1 { print } fence == 2 { exit }' docs/ARCHITECTURE.md)
missing=0
while read -r folder; do
    if ! grep -qE "^${folder}([[:space:]]|$)" <<<"$table"; then
        echo "docs/ARCHITECTURE.md's table does not name $folder"
        missing=1
    fi
done < <(git ls-files 'core/*' 'widgets/*' 'app/*' | grep -E '\.(cpp|h)$' | xargs -n1 dirname | sort -u)
[ "$missing" -eq 0 ] && echo "every folder of core/, widgets/ and app/ is in the table"
exit "$missing"
