#!/usr/bin/env bash
# The habits the tree keeps, as CTest checks (tests/CMakeLists.txt):
#   check_style.sh format           every tracked C/C++ file (but tests/data) matches the pinned
#                                   .clang-format under clang-format-14
#   check_style.sh function_length  no non-test function over 80 lines (scripts/long_functions.sh)
# Exits 77, which CTest reports as skipped, when the tool a check needs is not installed.
set -euo pipefail
cd "$(dirname "$0")/.."
skip() {
    echo "skipped: $1 (scripts/setup.sh installs it)"
    exit 77
}
case "${1:-}" in
    format)
        command -v clang-format-14 > /dev/null || skip "clang-format-14 is not installed"
        git rev-parse --is-inside-work-tree > /dev/null 2>&1 || skip "not a git checkout, so no list of tracked files"
        git ls-files -z -- '*.c' '*.cc' '*.cpp' '*.h' '*.hpp' ':!:tests/data/**' |
            xargs -0 clang-format-14 --dry-run -Werror
        echo "every tracked C/C++ file matches .clang-format"
        ;;
    function_length)
        ctags --version 2> /dev/null | grep -q "Universal Ctags" || skip "universal-ctags is not installed"
        long=$(bash scripts/long_functions.sh 80)
        if [ -n "$long" ]; then
            echo "non-test functions over 80 lines (split them into named steps):"
            echo "$long"
            exit 1
        fi
        echo "no non-test function is over 80 lines"
        ;;
    *)
        echo "usage: $0 format|function_length" >&2
        exit 2
        ;;
esac
