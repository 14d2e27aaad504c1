#!/usr/bin/env bash
# Fills .gpu-deps/ (git-ignored) with what tests/gpu/run.sh needs on a bare CUDA machine
# and cannot download there: GoogleTest's sources, the nlohmann/json headers, and the
# shared demo models and float64 references. Run here, then carry .gpu-deps to the device:
#   tests/gpu/prepare.sh   # then: device run, carry [".gpu-deps"], command tests/gpu/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
deps=.gpu-deps
shared=${KVCHAT_SHARED_DIR:-../shared}
rm -rf "$deps"
mkdir -p "$deps/include" "$deps/shared/models" "$deps/shared/reference"
cp -r /usr/src/googletest "$deps/googletest"
cp -r /usr/include/nlohmann "$deps/include/nlohmann"
cp "$shared"/models/kjv-demo-f32.gguf "$shared"/models/kjv-demo-f16.gguf "$shared"/models/stories260K.gguf \
  "$deps/shared/models/"
cp -r "$shared"/reference/kjv-demo "$deps/shared/reference/"
du -sh "$deps"
