#!/usr/bin/env bash
# Mutation testing of the guards listed in tests/mutants.toml (see scripts/mutants.py --help).
# Runs by hand and in the long weekly job, not in the per-change CI.
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/mutants.py" "$@"
