#!/usr/bin/env bash
# Builds the loadshift binary alone (not the tests and benchmarks) and prints the dry-run report
# of the bundled example (examples/seed-cluster): the seed policy (05-load-aware-policy.yaml,
# unchanged), the 8-node cluster snapshot and a usage file in which te3 runs hot. Extra arguments
# go to `loadshift report`, e.g. --output json.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh loadshift >&2
exec ./build/loadshift report \
  --policy test/data/shared/seed-examples/05-load-aware-policy.yaml \
  --snapshot examples/seed-cluster/cluster.yaml \
  --usage examples/seed-cluster/usage.json \
  "$@"
