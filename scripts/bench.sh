#!/usr/bin/env bash
# Benchmarks: generates the synthetic clusters of ../shared/PERFORMANCE.md in a temporary
# directory (never committed) and runs bench_placement on them. Prints figures.
# usage: scripts/bench.sh [NODES...]   (default: 500 2000 5000)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
gen=../shared/tools/gen_cluster.py
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sizes=("$@")
((${#sizes[@]})) || sizes=(500 2000 5000)
for nodes in "${sizes[@]}"; do
  echo "== ${nodes} nodes, 30 pods per node (kubectl-style indented JSON)"
  python3 "$gen" --nodes "$nodes" --pods-per-node 30 --hot-fraction 0.1 --seed 1 \
    --out "$dir/cluster.json" >/dev/null
  /usr/bin/time -f "wall %e s, max RSS %M KiB" ./build/bench_placement "$dir/cluster.json" 100
  rm -f "$dir/cluster.json"
done
