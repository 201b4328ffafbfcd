#!/usr/bin/env bash
# Configures and builds loadshift into build/ (Release with debug info).
# usage: scripts/build.sh [TARGET...]   (default: every target: the binary, tests, benchmarks)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
