#!/usr/bin/env bash
# The main job: install what is missing, build, and run kiln.
# (Later issues make this cook assets/ and run the player on the packs.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
scripts/build.sh release kiln
build/release/editor/kiln info
