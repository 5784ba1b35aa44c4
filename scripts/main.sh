#!/usr/bin/env bash
# The main job: install what is missing, build, cook the sample project in assets/ and run the
# player on the packs: it renders 60 frames of the sample scene (on the GPU, or Mesa's software
# renderer) and writes the last one's pictures to build/cooked-pictures. Prints the cook's summary
# and the player's report. A second run is incremental: the cook compiles nothing, the player loads
# every script page compiled and every pipeline through its pipeline cache.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
scripts/build.sh release kiln kiln-player
build/release/editor/kiln cook assets --out build/cooked --report build/cooked-report.json
build/release/player/kiln-player build/cooked --frames 60 --render build/cooked-pictures --stats
