#!/usr/bin/env bash
# Lists non-test functions longer than a limit (default 80 lines), longest first,
# from Universal Ctags' start/end lines. Usage: scripts/long_functions.sh [LIMIT] [DIR...]
set -euo pipefail
limit=${1:-80}
shift || true
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(core ops app widgets)
ctags -R --languages=C++ --kinds-C++=f --extras=-q --fields=+ne -o - "${dirs[@]}" 2>/dev/null |
    awk -F'\t' -v lim="$limit" '{
        line = ""; end = ""
        for (i = 4; i <= NF; i++) {
            if ($i ~ /^line:/) line = substr($i, 6)
            if ($i ~ /^end:/) end = substr($i, 5)
        }
        if (line != "" && end != "" && end - line + 1 > lim)
            printf "%5d %s:%s %s\n", end - line + 1, $2, line, $1
    }' | sort -rn
