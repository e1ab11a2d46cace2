#!/usr/bin/env bash
# The product code keeps the shape issue 28 gave it (docs/ARCHITECTURE.md, "Measuring the code"):
# no file over 800 lines, every file's first comment says its job, and no function over 50 lines
# (issue 28 brought them from 66 to none). A long new function is split into named steps before it
# lands, rather than the budget raised.
#   check_code_shape_test.sh SOURCE_DIR
set -euo pipefail
cd "$1"
max_functions_over_50=0
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
    echo "universal-ctags is missing (packaging/debian-packages.txt lists it): functions cannot be counted"
    exit 1
fi

read -r _ files _ functions _ no_job < <(bash scripts/code-shape.sh --counts)
echo "files over 800 lines: $files (0 allowed)"
echo "functions over 50 lines: $functions ($max_functions_over_50 allowed)"
echo "files without a job comment: $no_job (0 allowed)"
if [ "$files" -ne 0 ] || [ "$no_job" -ne 0 ] || [ "$functions" -gt "$max_functions_over_50" ]; then
    bash scripts/code-shape.sh
    exit 1
fi
