#!/usr/bin/env bash
# The shape of the product code (core/, widgets/, app/), measured one way (docs/ARCHITECTURE.md,
# "Measuring the code"): files over 800 lines, functions over 50 lines (universal-ctags' function
# tags with their end lines), and files whose first comment does not come before their code.
#   scripts/code-shape.sh            the three lists and their counts
#   scripts/code-shape.sh --counts   one line: "files_over_800 N functions_over_50 N files_without_job N"
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mapfile -t files < <(git ls-files 'core/*.cpp' 'core/*.h' 'widgets/*.cpp' 'widgets/*.h' 'app/*.cpp' 'app/*.h')

long_files=$(for f in "${files[@]}"; do n=$(wc -l <"$f"); [ "$n" -gt 800 ] && echo "$n $f"; done | sort -rn || true)

long_functions=$(ctags --languages=C++ --kinds-C++=f --fields=+ne -o - "${files[@]}" 2>/dev/null |
    awk -F'\t' '{ line = 0; end = 0
        for (i = 4; i <= NF; i++) {
            if ($i ~ /^line:/) { split($i, a, ":"); line = a[2] }
            if ($i ~ /^end:/) { split($i, b, ":"); end = b[2] }
        }
        if (end > 0 && end - line + 1 > 50) print end - line + 1, $2 ":" line, $1 }' | sort -rn || true)

# A file's job: a comment before the first line of code (preprocessor lines and blank lines may
# come first).
no_job=$(for f in "${files[@]}"; do
    awk '/^[[:space:]]*$/ || /^[[:space:]]*#/ { next }
         /^[[:space:]]*\/\// || /^[[:space:]]*\/\*/ { found = 1; exit }
         { exit }
         END { exit found ? 0 : 1 }' "$f" || echo "$f"
done)

count() { if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | wc -l; fi; }
if [ "${1:-}" = "--counts" ]; then
    echo "files_over_800 $(count "$long_files") functions_over_50 $(count "$long_functions") files_without_job $(count "$no_job")"
    exit 0
fi
echo "== files over 800 lines: $(count "$long_files")"; [ -n "$long_files" ] && printf '%s\n' "$long_files"
echo "== functions over 50 lines: $(count "$long_functions")"; [ -n "$long_functions" ] && printf '%s\n' "$long_functions"
echo "== files whose first comment does not come before their code: $(count "$no_job")"; [ -n "$no_job" ] && printf '%s\n' "$no_job"
exit 0
