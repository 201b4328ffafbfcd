#!/usr/bin/env bash
# Configures and builds loadshift into build/ (Release with debug info).
# usage: scripts/build.sh [TARGET...]   (default: every target: the binary, tests, benchmarks)
set -euo pipefail
cd "$(dirname "$0")/.."
# Only the build's packages when building the binary alone (run-example.sh), all otherwise.
if [[ $# -eq 1 && $1 == loadshift ]]; then ./scripts/setup.sh build; else ./scripts/setup.sh; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
