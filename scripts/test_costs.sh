#!/usr/bin/env bash
# Writes tests/test_costs.tsv from the last ASan+UBSan ctest run: the seconds each test took, for the
# tests that took 5 s or more. ctest starts the costliest first, so that on a clean build (which has no
# timings of its own) a long test does not start last and run alone while the other core waits.
#   scripts/test_costs.sh        after `ctest --preset asan` (scripts/test.sh runs it)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
data=build/asan/Testing/Temporary/CTestCostData.txt
[[ -f "$data" ]] || { echo "test_costs: no $data: run the asan tests first" >&2; exit 1; }
{
  echo "# seconds<TAB>test: written by scripts/test_costs.sh from an ASan+UBSan run"
  # Lines are "<name> <runs> <seconds>" up to the "---" that starts the list of failed tests.
  awk '/^---/ {exit} NF >= 3 && $(NF - 1) >= 1 && $NF != "inf" && $NF >= 5 {name = $0; sub(/ [0-9]+ [0-9.e+-]+$/, "", name); printf "%d\t%s\n", $NF + 0.5, name}' "$data" |
    sort -t$'\t' -k1,1nr -k2
} > tests/test_costs.tsv
echo "test_costs: $(($(wc -l < tests/test_costs.tsv) - 1)) tests of 5 s or more in tests/test_costs.tsv"
