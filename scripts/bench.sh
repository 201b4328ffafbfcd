#!/usr/bin/env bash
# Benchmarks: generates the synthetic clusters of test/data/shared/tools/gen_cluster.py in a temporary
# directory (never committed) and runs bench_placement, bench_plan, bench_kube_sync and
# bench_kube_encoding on them,
# bench_controller_cycle on the largest; then bench_usage_fetch against a
# real Prometheus (see below) and bench_prometheus_decode. Prints figures.
# usage: scripts/bench.sh [NODES...]   (default: 500 2000 5000; the usage fetch uses
#        LOADSHIFT_BENCH_USAGE_NODES, default 5000)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
gen=test/data/shared/tools/gen_cluster.py
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sizes=("$@")
((${#sizes[@]})) || sizes=(500 2000 5000)
largest=0
for nodes in "${sizes[@]}"; do if ((nodes > largest)); then largest=$nodes; fi; done
for nodes in "${sizes[@]}"; do
  echo "== ${nodes} nodes, 30 pods per node (kubectl-style indented JSON)"
  python3 "$gen" --nodes "$nodes" --pods-per-node 30 --hot-fraction 0.1 --seed 1 \
    --out "$dir/cluster.json" --usage-out "$dir/usage.json" --pod-usage >/dev/null
  /usr/bin/time -f "wall %e s, max RSS %M KiB" ./build/test/bench_placement "$dir/cluster.json" 100
  echo "-- plan (LoadAware on the generated usage; LowNodeUtilization 20/20/20 -> 50/50/50)"
  /usr/bin/time -f "wall %e s, max RSS %M KiB" ./build/test/bench_plan "$dir/cluster.json" \
    "$dir/usage.json"
  echo "-- the same cluster read through the API (fake API server in a child process, TLS)"
  ./build/test/bench_kube_sync "$dir/cluster.json" 500
  echo "-- Pods and Nodes listed in JSON and in protobuf (one client process per encoding)"
  ./build/test/bench_kube_encoding "$dir/cluster.json"
  if ((nodes == largest)); then
    # Issue 12: the controller's steady-state cycle (dry run) on a warm cache, 100 cycles.
    echo "-- the controller's cycle: 100 dry-run cycles on a warm cache (fake API server and fake"
    echo "   Prometheus serving the generated usage, in a child process)"
    /usr/bin/time -f "wall %e s, max RSS %M KiB (the larger of the controller and the servers' child)" \
      ./build/test/bench_controller_cycle "$dir/cluster.json" 100 "$dir/usage.json"
  fi
  rm -f "$dir/cluster.json" "$dir/usage.json"
done

# Node usage fetch (issue 4): 5,000 nodes of node_exporter data (1 h at 15 s) imported into a real
# Prometheus in a temporary directory; loadshift's 2-query fetch against Volcano's per-node
# queries, in the same run. Needs prometheus + promtool (scripts/setup.sh installs them).
echo "== node usage fetch: ${LOADSHIFT_BENCH_USAGE_NODES:-5000} nodes, 60 min history"
/usr/bin/time -f "wall %e s, max RSS %M KiB (largest process: bench, promtool or prometheus)" \
  ./build/test/bench_usage_fetch "${LOADSHIFT_BENCH_USAGE_NODES:-5000}" 60

# Decoding one Prometheus answer of 150,000 series (the controller's pod queries, issue 12).
echo "== decoding a 150,000-series Prometheus answer (16 MB, synthetic)"
./build/test/bench_prometheus_decode 150000 5
