#!/usr/bin/env bash
# Checks the monitoring that deploy/components/monitoring ships, as `kubectl kustomize` renders it
# (deploy/overlays/monitoring):
#  - the PrometheusRule's rules pass `promtool check rules`, and the unit tests of every alert in
#    test/deploy/alerts_test.yaml pass `promtool test rules`; every alert has a test;
#  - every PromQL expression of the Grafana dashboard (panels and variables) parses: each, with
#    the dashboard's variables replaced by values, becomes a recording rule that
#    `promtool check rules` parses; every panel has a query and the Prometheus datasource
#    variable, ids are unique.
# That the dashboard and the alerts name only metrics the controller exports is checked against
# a running controller's /metrics by the run tests ("the dashboard and the alerts name only
# exported metrics", test/run/metrics_export_test.cc).
# Needs kubectl, python3 with PyYAML and promtool (Debian's prometheus). Exits non-zero on the
# first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
  echo "monitoring_test: FAIL: $*" >&2
  exit 1
}
command -v promtool >/dev/null 2>&1 || fail "promtool is missing: run scripts/setup.sh (prometheus)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kubectl kustomize deploy/overlays/monitoring >"$work/monitoring.yaml" ||
  fail "kubectl kustomize deploy/overlays/monitoring failed"

python3 - "$work" test/deploy/alerts_test.yaml <<'PYTHON' || fail "extracting the rules and the dashboard failed"
import json
import re
import sys

import yaml

work, tests = sys.argv[1], sys.argv[2]
docs = [d for d in yaml.safe_load_all(open(f"{work}/monitoring.yaml")) if d]
failures = []
rules = [d for d in docs if d.get("kind") == "PrometheusRule"]
if len(rules) != 1:
    sys.exit(f"expected one PrometheusRule, found {len(rules)}")
with open(f"{work}/loadshift-rules.yaml", "w") as f:
    yaml.safe_dump(rules[0]["spec"], f, sort_keys=False)
alerts = {r["alert"] for g in rules[0]["spec"]["groups"] for r in g["rules"] if "alert" in r}
tested = {t.get("alertname") for case in yaml.safe_load(open(tests))["tests"]
          for t in case.get("alert_rule_test", [])}
if alerts - tested:
    failures.append(f"alerts without a unit test in {tests}: {sorted(alerts - tested)}")
if tested - alerts:
    failures.append(f"unit tests of alerts that do not exist: {sorted(tested - alerts)}")

dashboards = [d for d in docs if d.get("kind") == "ConfigMap"
              and d.get("metadata", {}).get("labels", {}).get("grafana_dashboard") == "1"]
if len(dashboards) != 1:
    sys.exit(f"expected one dashboard ConfigMap, found {len(dashboards)}")
dashboard = json.loads(dashboards[0]["data"]["loadshift-dashboard.json"])

# Grafana's variables, replaced by values of their kind, so that promtool can parse the query.
SUBSTITUTE = {"$__rate_interval": "2m", "$__interval": "1m", "$__range": "6h",
              "$job": "loadshift-metrics", "$pool": "training"}
def substituted(expr, where):
    for name, value in SUBSTITUTE.items():
        expr = expr.replace(name, value)
    left = re.findall(r"\$\w+", expr)
    if left:
        failures.append(f"{where}: variable(s) {left} not known to this test")
    return expr

records = []
ids = set()
def walk(panels):
    for p in panels:
        where = f"panel {p.get('id')} \"{p.get('title')}\""
        if p.get("id") in ids:
            failures.append(f"{where}: id used twice")
        ids.add(p.get("id"))
        if p.get("type") == "row":
            walk(p.get("panels", []))
            continue
        if p.get("datasource") != {"type": "prometheus", "uid": "${datasource}"}:
            failures.append(f"{where}: datasource {p.get('datasource')}, not the variable")
        if not p.get("description"):
            failures.append(f"{where}: no description")
        targets = p.get("targets", [])
        if not targets:
            failures.append(f"{where}: no query")
        for t in targets:
            if not t.get("expr"):
                failures.append(f"{where}: target {t.get('refId')} has no expression")
                continue
            records.append((f"{where} {t.get('refId')}", substituted(t["expr"], where)))
walk(dashboard.get("panels", []))
variables = dashboard.get("templating", {}).get("list", [])
if not any(v.get("type") == "datasource" and v.get("name") == "datasource" for v in variables):
    failures.append("no datasource variable")
for v in variables:
    if v.get("type") != "query":
        continue
    query = v.get("query", {}).get("query", "")
    m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", query)
    if not m:
        failures.append(f"variable {v.get('name')}: query {query!r} is not label_values(SELECTOR, LABEL)")
        continue
    records.append((f"variable {v.get('name')}", substituted(m.group(1), f"variable {v.get('name')}")))
with open(f"{work}/dashboard-rules.yaml", "w") as f:
    yaml.safe_dump({"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query_{i}", "expr": expr} for i, (_, expr) in enumerate(records)]}]},
        f, sort_keys=False)
with open(f"{work}/dashboard-queries.txt", "w") as f:
    for i, (where, expr) in enumerate(records):
        f.write(f"dashboard:query_{i}\t{where}\t{expr}\n")
if failures:
    for x in failures:
        print(f"monitoring_test: {x}", file=sys.stderr)
    sys.exit(1)
print(f"monitoring_test: {len(alerts)} alerts, {len(records)} dashboard queries")
PYTHON

promtool check rules "$work/loadshift-rules.yaml" || fail "promtool check rules: the alerts"
cp test/deploy/alerts_test.yaml "$work/"
promtool test rules "$work/alerts_test.yaml" || fail "promtool test rules: the alerts' unit tests"
if ! promtool check rules "$work/dashboard-rules.yaml" >"$work/dashboard.out" 2>&1; then
  cat "$work/dashboard.out" >&2
  echo "the queries (record name, panel, expression):" >&2
  cat "$work/dashboard-queries.txt" >&2
  fail "a dashboard query does not parse"
fi
echo "monitoring_test: 1 passed, 0 failed"
