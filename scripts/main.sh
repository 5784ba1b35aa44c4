#!/usr/bin/env bash
# The main job: install what is missing, build, and run kiln.
# (Issue 7 makes this cook assets/ and run the player on the packs.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
scripts/build.sh release kiln
build/release/editor/kiln info
build/release/editor/kiln probe variants
# One variant of the sample project, through the variant cache (a second run is a disk hit).
(cd assets && ../build/release/editor/kiln shader compile shaders/lit.frag --keywords FOG,NORMALMAP --pass Forward)
