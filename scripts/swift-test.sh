#!/usr/bin/env bash
# Runs the Swift tests (already built) and, when any fails, repeats every failure's lines at the
# end of the output: CI shows only a run's last lines, and a failure's message is far above them.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp "${TMPDIR:-/tmp}/adstitch-swift-test.XXXXXX")
trap 'rm -f "$log"' EXIT
"${SWIFT:-swift}" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "swift-test.sh: swift test exited $status; the failures (each with the lines that follow it):"
    # An issue's message may span lines: keep those up to the next test event (✔ ✘ ◇ or a summary; its ↳ lines are kept).
    awk '/recorded an issue|Fatal error|Crash/ { show = 1; print; next }
         /^(✔|✘|◇|􀟈|Test Suite|Executed)/ { show = 0 }
         show { print }' "$log" | head -200
    grep -E '^✘ (Test|Suite) ' "$log" | head -40
fi
exit "$status"
