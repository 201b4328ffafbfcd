#!/usr/bin/env bash
# Builds loadshift and runs it on the bundled example cluster (examples/seed-cluster).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >&2
exec ./build/loadshift feasible --snapshot examples/seed-cluster/cluster.yaml
