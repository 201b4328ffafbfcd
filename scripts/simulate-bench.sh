#!/usr/bin/env bash
# Convergence figures (docs/performance.md, docs/convergence.md): `loadshift simulate` on the
# bundled example and on synthetic 1,000-node clusters of test/data/shared/tools/gen_cluster.py, with and
# without landing prediction and the soft taint. Two synthetic clusters: the generator's as it is,
# and a variant where the pods of the hot nodes request a fifth of what they did (under-requested
# pods: the hot nodes look the emptiest to the scheduler, the ping-pong case). Prints figures;
# nothing is committed.
# usage: scripts/simulate-bench.sh [NODES] (default 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
nodes=${1:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin=./build/loadshift
at=2026-11-22T04:00:00Z

run_all() {  # label policy snapshot usage
  local label=$1 policy=$2 snapshot=$3 usage=$4
  for flags in "--no-landing-prediction" "" "--soft-taint-hot-nodes" \
    "--no-landing-prediction --workload-cooldown 30m"; do
    echo "== ${label}: ${flags:-landing prediction (default)}"
    # shellcheck disable=SC2086
    /usr/bin/time -f "wall %e s, max RSS %M KiB" \
      "$bin" simulate --policy "$policy" --snapshot "$snapshot" --usage "$usage" --cycles 8 \
      --at "$at" $flags 2>&1 | grep -v '^warning:'
  done
}

run_all "bundled example (examples/seed-cluster)" \
  test/data/shared/seed-examples/05-load-aware-policy.yaml \
  examples/seed-cluster/cluster.yaml examples/seed-cluster/usage.json
run_all "examples/ping-pong" examples/ping-pong/policy.yaml examples/ping-pong/cluster.yaml \
  examples/ping-pong/usage.json

python3 test/data/shared/tools/gen_cluster.py --nodes "$nodes" --pods-per-node 30 --hot-fraction 0.1 \
  --seed 1 --out "$dir/cluster.json" --usage-out "$dir/usage.json" --pod-usage >/dev/null
cat >"$dir/policy.yaml" <<'POLICY'
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: balance
  pluginConfig:
  - name: DefaultEvictor
    args: {nodeFit: true, priorityThreshold: {value: 10000}}
  - name: LoadAware
    args:
      metrics: {type: Prometheus, address: "http://prometheus:9090"}
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
  plugins:
    balance: {enabled: [LoadAware]}
POLICY
run_all "synthetic ${nodes} nodes (gen_cluster.py seed 1)" "$dir/policy.yaml" "$dir/cluster.json" \
  "$dir/usage.json"

python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
usage = json.load(open(f"{d}/usage.json"))
hot = {n for n, u in usage["nodes"].items() if u["cpu"] > 80}
cluster = json.load(open(f"{d}/cluster.json"))
def fifth(q):
    if q.endswith("m"):
        return f"{max(1, int(q[:-1]) // 5)}m"
    if q.endswith("Mi"):
        return f"{max(1, int(q[:-2]) // 5)}Mi"
    if q.endswith("Gi"):
        return f"{max(1, int(float(q[:-2]) * 1024) // 5)}Mi"
    return f"{max(1, int(float(q) * 1000) // 5)}m"
for item in cluster["items"]:
    if item["kind"] != "Pod" or item["spec"].get("nodeName") not in hot:
        continue
    for c in item["spec"].get("containers", []):
        req = c.get("resources", {}).get("requests", {})
        for r in ("cpu", "memory"):
            if r in req:
                req[r] = fifth(req[r])
json.dump(cluster, open(f"{d}/under.json", "w"))
print(f"under-requested variant: pods of {len(hot)} hot nodes (cpu > 80%) request a fifth")
PY
run_all "synthetic ${nodes} nodes, hot nodes' pods under-requested" "$dir/policy.yaml" \
  "$dir/under.json" "$dir/usage.json"
