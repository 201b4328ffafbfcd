#!/usr/bin/env bash
# Renders the Kubernetes manifests (deploy/base and every overlay) with `kubectl kustomize`, lints
# them and deploy/ with yamllint, and checks what must hold: every kind is there, RBAC grants what
# the controller does and nothing more (list+watch of every collection of plan_collections() in
# kube/cluster_reader.cc, create on pods/eviction and events, list on events (the cool-down's
# rebuild), the lease, the token Secret; no delete, no patch, no wildcard), the pod runs as
# non-root on a read-only root filesystem, probes and ports, the policy ConfigMap mounted as a
# directory and parsing as a DeschedulerPolicy, dry-run in the base and not in the overlays, the
# soft-taint overlay turning --soft-taint-hot-nodes on with `patch` on nodes (only there), the
# volcano overlay a drop-in for the Volcano descheduler of Volcano's installer (its namespace,
# ServiceAccount and ConfigMap, none of them created), the monitoring overlay's ServiceMonitor,
# PrometheusRule and dashboard, the image settable with `kustomize edit set image` and tagged
# with the project's version. Every rendered object is validated against the Kubernetes and
# Prometheus Operator schemas, strictly (test/deploy/validate_schemas.mjs, node_modules/ from
# scripts/setup.sh).
#
# Usage: test/deploy/render_test.sh [RULES.json]
#   RULES.json, when given, receives the ClusterRole and Role rules as a JSON list of
#   {"namespace": "" | "loadshift", "apiGroups", "resources", "verbs", "resourceNames",
#    "nonResourceURLs"} (namespace "" = cluster-wide), for a test that serves them from a fake
#   API server.
# Needs kubectl (with its built-in kustomize), yamllint, python3 with PyYAML, and Node.js. Exits non-zero
# with a message on the first failure; never skips a check.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
  echo "render_test: FAIL: $*" >&2
  exit 1
}

rules_out=""
if (($# > 0)); then
  rules_out=$1
fi

if ! command -v kubectl >/dev/null 2>&1; then
  fail "kubectl is not installed. It is not in Debian's archive: the machine image brings it" \
    "(package kubectl); install kubectl 1.27 or newer (kustomize v5 built in) and run again"
fi
if ! command -v yamllint >/dev/null 2>&1; then
  fail "yamllint is not installed: run scripts/setup.sh (Debian package yamllint)"
fi
py=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import yaml' 2>/dev/null; then
    py=$candidate
    break
  fi
done
[[ -n $py ]] || fail "python3 with PyYAML is missing: run scripts/setup.sh (Debian python3-yaml)"
command -v node >/dev/null 2>&1 || fail "node is not installed: run scripts/setup.sh"
[[ -d node_modules/kubernetes-models && -d node_modules/typescript ]] ||
  fail "node_modules/ lacks the schema packages: run scripts/setup.sh (npm ci)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "render_test: $(kubectl version --client 2>/dev/null | tr '\n' ' ')"

# Render the base, the overlays, and an overlay of the user's that sets the image the way
# `kustomize edit set image loadshift=registry.test/team/loadshift:v9.8.7` writes it.
render() {
  local dir=$1 out=$2
  kubectl kustomize "$dir" >"$out" 2>"$work/kustomize.err" ||
    fail "kubectl kustomize $dir: $(cat "$work/kustomize.err")"
  [[ -s $out ]] || fail "kubectl kustomize $dir rendered nothing"
}
render deploy/base "$work/base.yaml"
render deploy/overlays/evict "$work/evict.yaml"
render deploy/overlays/ha "$work/ha.yaml"
render deploy/overlays/soft-taint "$work/soft-taint.yaml"
render deploy/overlays/volcano "$work/volcano.yaml"
render deploy/overlays/monitoring "$work/monitoring.yaml"
mkdir "$work/user"
base_from_user=$(realpath --relative-to="$work/user" deploy/base) # kustomize refuses absolute paths
cat >"$work/user/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- $base_from_user
images:
- name: loadshift
  newName: registry.test/team/loadshift
  newTag: v9.8.7
EOF
render "$work/user" "$work/user.yaml"
# The monitoring component in the volcano overlay, as docs/operations.md says to combine them.
mkdir "$work/volcano-monitored"
deploy_from_user=$(realpath --relative-to="$work/volcano-monitored" deploy)
cat >"$work/volcano-monitored/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: volcano-system
resources:
- $deploy_from_user/overlays/volcano
components:
- $deploy_from_user/components/monitoring
EOF
render "$work/volcano-monitored" "$work/volcano-monitored.yaml"

lint_config=deploy/.yamllint.yaml
yamllint -c "$lint_config" -f parsable deploy/ || fail "yamllint found problems in deploy/"
rendered_all=(base evict ha soft-taint volcano monitoring user volcano-monitored)
# The dashboard ConfigMap holds the dashboard's JSON as one string, whose lines (its PromQL) may
# be long: the rendered monitoring manifests are linted without the line length.
printf 'extends: %s\nrules:\n  line-length: disable\n' "$PWD/$lint_config" >"$work/yamllint-long.yaml"
for rendered in "${rendered_all[@]}"; do
  config=$lint_config
  [[ $rendered != *monitor* ]] || config=$work/yamllint-long.yaml
  yamllint -c "$config" -f parsable "$work/$rendered.yaml" ||
    fail "yamllint found problems in the rendered $rendered manifests"
done

# The schemas: every rendered object of every overlay, and the examples' manifests the docs
# apply (examples/quickstart).
schema_inputs=()
for example in examples/quickstart/*.yaml; do
  name=example-$(basename "$example" .yaml)
  "$py" -c 'import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d], open(sys.argv[2], "w"))' \
    "$example" "$work/$name.json"
  schema_inputs+=("$work/$name.json")
done
for rendered in "${rendered_all[@]}"; do
  "$py" -c 'import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d], open(sys.argv[2], "w"))' \
    "$work/$rendered.yaml" "$work/$rendered.json"
  schema_inputs+=("$work/$rendered.json")
done
node test/deploy/validate_schemas.mjs "${schema_inputs[@]}" ||
  fail "rendered objects do not match the Kubernetes or Prometheus Operator schemas"

volcano_installer=test/data/shared/policy-corpus/volcano-sh_descheduler/installer__volcano-descheduler-development.yaml
version=$(sed -n 's/^project(loadshift VERSION \([0-9.]*\) .*/\1/p' CMakeLists.txt)
checks=("$work" kube/cluster_reader.cc "$rules_out" "$volcano_installer" "$version")
"$py" - "${checks[@]}" <<'PYTHON' || fail "manifest checks failed"
import json
import os
import re
import sys

import yaml

work, reader_source, rules_out, volcano_installer, version = sys.argv[1:6]
NS = "loadshift"
NAME_LABEL = ("app.kubernetes.io/name", "loadshift")
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def load(name):
    with open(os.path.join(work, name + ".yaml")) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def only(docs, kind, where):
    found = [d for d in docs if d.get("kind") == kind]
    if not check(len(found) == 1, f"{where}: expected one {kind}, found {len(found)}"):
        return {}
    return found[0]


def container_of(deployment):
    containers = deployment.get("spec", {}).get("template", {}).get("spec", {}).get("containers", [])
    check(len(containers) == 1, f"expected one container, found {len(containers)}")
    return containers[0] if containers else {}


# The flags `loadshift run` has: an arg that looks like a flag must be one of them.
RUN_FLAGS = {
    "--policy", "--descheduling-interval", "--dry-run", "--kubeconfig", "--context",
    "--kube-api-qps", "--kube-api-burst", "--prometheus", "--metrics-addr", "--tls-cert-file",
    "--tls-private-key-file", "--log-format", "--leader-elect", "--leader-elect-lease-duration",
    "--leader-elect-renew-deadline", "--leader-elect-retry-period",
    "--leader-elect-resource-name", "--leader-elect-resource-namespace",
    "--max-in-flight-per-workload", "--workload-cooldown", "--soft-taint-hot-nodes",
}


def check_args(args, where):
    check(args[:1] == ["run"], f"{where}: args must start with the run command: {args}")
    for arg in args:
        if arg.startswith("-"):
            check(arg.split("=", 1)[0] in RUN_FLAGS, f"{where}: unknown flag {arg}")


base = load("base")

# Every kind, once; everything namespaced in loadshift; every object labelled.
EXPECTED = ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
            "RoleBinding", "ConfigMap", "Deployment", "Service"]
kinds = sorted(d.get("kind") for d in base)
check(kinds == sorted(EXPECTED), f"kinds rendered {kinds}, expected {sorted(EXPECTED)}")
for d in base:
    meta = d.get("metadata", {})
    what = f"{d.get('kind')}/{meta.get('name')}"
    check(meta.get("labels", {}).get(NAME_LABEL[0]) == NAME_LABEL[1], f"{what}: label {NAME_LABEL}")
    if d.get("kind") in ("Namespace", "ClusterRole", "ClusterRoleBinding"):
        check("namespace" not in meta, f"{what}: cluster-scoped but has a namespace")
    else:
        check(meta.get("namespace") == NS, f"{what}: namespace {meta.get('namespace')}, not {NS}")
check(only(base, "Namespace", "base").get("metadata", {}).get("name") == NS, "namespace name")

# RBAC ------------------------------------------------------------------------------------------
cluster_role = only(base, "ClusterRole", "base")
role = only(base, "Role", "base")
rules = []
for namespace, obj in (("", cluster_role), (NS, role)):
    for r in obj.get("rules", []):
        rules.append({
            "namespace": namespace,
            "apiGroups": r.get("apiGroups", []),
            "resources": r.get("resources", []),
            "verbs": r.get("verbs", []),
            "resourceNames": r.get("resourceNames", []),
            "nonResourceURLs": r.get("nonResourceURLs", []),
        })

for r in rules:
    where = f"rule {r}"
    for field in ("apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs"):
        check(not any("*" in v for v in r[field]), f"{where}: wildcard in {field}")
    check(not {"delete", "deletecollection", "patch", "escalate", "bind", "impersonate"}
          & set(r["verbs"]), f"{where}: a verb loadshift never uses")
    check(r["nonResourceURLs"] == [] or r["namespace"] == "", f"{where}: URLs in a Role")


def allowed(namespace, group, resource, verb, name=None):
    """True when a rule grants it (a cluster rule applies everywhere)."""
    for r in rules:
        if r["namespace"] not in ("", namespace):
            continue
        if group in r["apiGroups"] and resource in r["resources"] and verb in r["verbs"]:
            if not r["resourceNames"] or (name is not None and name in r["resourceNames"]):
                return True
    return False


# Exactly what the controller does, cluster-wide: list+watch of plan_collections().
with open(reader_source) as f:
    source = f.read()
body = source[source.index("plan_collections() {"):]
body = body[:body.index("return collections;")]
collections = re.findall(r'\{"(/apis?/[^"]+)",\s*"[^"]+",\s*"[^"]+",\s*(true|false)', body)
check(len(collections) >= 10, f"found only {len(collections)} collections in {reader_source}")
wanted = []  # (group, resource, verbs, namespace, name)
discovery = set()
for path, custom in collections:
    parts = path.strip("/").split("/")
    group = "" if parts[0] == "api" else parts[1]
    wanted.append((group, parts[-1], ("list", "watch"), "", None))
    if custom == "true":
        discovery.add("/" + "/".join(parts[:-1]))
wanted += [
    ("", "pods/eviction", ("create",), "", None),
    ("events.k8s.io", "events", ("create", "list"), "", None),
    ("coordination.k8s.io", "leases", ("create",), NS, None),
    ("coordination.k8s.io", "leases", ("get", "update"), NS, "loadshift"),
    ("", "secrets", ("get",), NS, "loadshift-prometheus-token"),
]
for group, resource, verbs, namespace, name in wanted:
    for verb in verbs:
        check(allowed(namespace, group, resource, verb, name),
              f"not granted: {verb} {group or 'core'}/{resource} in {namespace or 'the cluster'}")
# ...and nothing else.
granted = set()
for r in rules:
    for g in r["apiGroups"]:
        for res in r["resources"]:
            for v in r["verbs"]:
                granted.add((g, res, v, r["namespace"], tuple(r["resourceNames"])))
expected = set()
for group, resource, verbs, namespace, name in wanted:
    for verb in verbs:
        expected.add((group, resource, verb, namespace, (name,) if name else ()))
check(granted == expected, f"grants beyond what loadshift does: {sorted(granted - expected)}")
urls = {(u, v) for r in rules for u in r["nonResourceURLs"] for v in r["verbs"]}
check(urls == {(u, "get") for u in discovery},
      f"discovery URLs {sorted(urls)}, expected get on {sorted(discovery)}")
check(not allowed("default", "", "pods", "delete"), "pods delete is granted")
check(not allowed(NS, "", "secrets", "list"), "secrets list is granted")
check(not allowed("", "", "nodes", "patch"), "base: nodes patch is granted (only the soft-taint "
      "overlay may)")

sa = only(base, "ServiceAccount", "base").get("metadata", {}).get("name")
for kind, role_kind, role_obj in (("ClusterRoleBinding", "ClusterRole", cluster_role),
                                  ("RoleBinding", "Role", role)):
    binding = only(base, kind, "base")
    ref = binding.get("roleRef", {})
    check(ref.get("kind") == role_kind and ref.get("name") == role_obj.get("metadata", {}).get("name"),
          f"{kind} binds {ref}")
    check(binding.get("subjects") == [{"kind": "ServiceAccount", "name": sa, "namespace": NS}],
          f"{kind} subjects {binding.get('subjects')}")

# The Deployment ---------------------------------------------------------------------------------
deployment = only(base, "Deployment", "base")
spec = deployment.get("spec", {})
pod = spec.get("template", {}).get("spec", {})
c = container_of(deployment)
check(spec.get("replicas") == 1, "base: replicas must be 1")
check(spec.get("strategy", {}).get("type") == "Recreate", "base: strategy must be Recreate")
check(pod.get("serviceAccountName") == sa, "pod does not run as the loadshift ServiceAccount")
check(pod.get("priorityClassName") == "system-cluster-critical", "priorityClassName")
pod_labels = spec.get("template", {}).get("metadata", {}).get("labels", {})
check(spec.get("selector", {}).get("matchLabels", {}).items() <= pod_labels.items(),
      "Deployment selector does not match the pod's labels")

psc, csc = pod.get("securityContext", {}), c.get("securityContext", {})
check(psc.get("runAsNonRoot") is True and csc.get("runAsNonRoot") is True, "runAsNonRoot")
check(csc.get("runAsUser", psc.get("runAsUser")) == 65532, "runAsUser must be 65532")
check(csc.get("readOnlyRootFilesystem") is True, "root filesystem must be read-only")
check(csc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation must be false")
check(csc.get("privileged") in (None, False), "privileged")
check(csc.get("capabilities", {}).get("drop") == ["ALL"], "capabilities must drop ALL")
check(not csc.get("capabilities", {}).get("add"), "capabilities added")
check(csc.get("seccompProfile", psc.get("seccompProfile", {})).get("type") == "RuntimeDefault",
      "seccompProfile must be RuntimeDefault")

res = c.get("resources", {})
check(res.get("requests") == {"cpu": "100m", "memory": "256Mi"}, f"requests {res.get('requests')}")
check(res.get("limits", {}).get("memory") == "1Gi", f"limits {res.get('limits')}")

ports = {p.get("name"): p for p in c.get("ports", [])}
check(ports.get("metrics", {}).get("containerPort") == 10258, "container port metrics 10258")
for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
    get = c.get(probe, {}).get("httpGet", {})
    check(get.get("path") == path and get.get("port") == "metrics",
          f"{probe} must GET {path} on port metrics, is {get}")
    check(get.get("scheme", "HTTP") == "HTTP", f"{probe}: scheme {get.get('scheme')}")

env = {e.get("name"): e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
       for e in c.get("env", [])}
check(env.get("POD_NAMESPACE") == "metadata.namespace", "POD_NAMESPACE from the downward API")
check(env.get("POD_NAME") == "metadata.name", "POD_NAME from the downward API")

args = c.get("args", [])
check_args(args, "base")
check("--dry-run" in args, "base: must run with --dry-run")
check("--leader-elect" not in args, "base: no leader election with one replica")
check(c.get("image") == f"loadshift:{version}",
      f"base image {c.get('image')}: must be loadshift:{version}, the tag scripts/build-image.sh gives")

# The policy: the ConfigMap, mounted as a directory, read from the path --policy names.
configmap = only(base, "ConfigMap", "base")
cm_name = configmap.get("metadata", {}).get("name")
check(cm_name == "loadshift-policy", f"ConfigMap name {cm_name}: must be stable (no hash suffix)")
policy_text = configmap.get("data", {}).get("policy.yaml")
if check(policy_text is not None, "ConfigMap has no key policy.yaml"):
    try:
        policy = yaml.safe_load(policy_text)
    except yaml.YAMLError as e:
        policy = None
        check(False, f"policy.yaml does not parse: {e}")
    if policy is not None:
        check(policy.get("apiVersion") == "descheduler/v1alpha2", "policy apiVersion")
        check(policy.get("kind") == "DeschedulerPolicy", "policy kind")
        check(len(policy.get("profiles") or []) > 0, "policy has no profile")
volumes = {v.get("name"): v for v in pod.get("volumes", [])}
policy_volumes = [n for n, v in volumes.items() if v.get("configMap", {}).get("name") == cm_name]
check(len(policy_volumes) == 1, f"the ConfigMap {cm_name} must be one volume")
mounts = [m for m in c.get("volumeMounts", []) if m.get("name") in policy_volumes]
if check(len(mounts) == 1, "the policy volume must be mounted once"):
    mount = mounts[0]
    check("subPath" not in mount and "subPathExpr" not in mount,
          "the policy is mounted with subPath: it would never be updated")
    policy_arg = args[args.index("--policy") + 1] if "--policy" in args[:-1] else None
    check(policy_arg == mount.get("mountPath", "").rstrip("/") + "/policy.yaml",
          f"--policy {policy_arg} is not policy.yaml in {mount.get('mountPath')}")
    check(not volumes[mount["name"]]["configMap"].get("items"), "policy volume lists items")
for m in c.get("volumeMounts", []):
    check("subPath" not in m, f"volume {m.get('name')} mounted with subPath")

service = only(base, "Service", "base")
sspec = service.get("spec", {})
check(sspec.get("type", "ClusterIP") == "ClusterIP", "Service type")
check(sspec.get("selector", {}).items() <= pod_labels.items() and sspec.get("selector"),
      "Service selector does not select the pod")
sports = sspec.get("ports", [])
check(len(sports) == 1 and sports[0].get("port") == 10258
      and sports[0].get("targetPort") == "metrics", f"Service ports {sports}")

# The overlays -----------------------------------------------------------------------------------
without_dry_run = [a for a in args if a != "--dry-run"]
evict = container_of(only(load("evict"), "Deployment", "evict"))
check(evict.get("args") == without_dry_run, f"evict: args {evict.get('args')}, expected the "
      f"base's without --dry-run {without_dry_run}")
ha_deployment = only(load("ha"), "Deployment", "ha")
ha = container_of(ha_deployment)
check_args(ha.get("args", []), "ha")
check(ha_deployment.get("spec", {}).get("replicas") == 2, "ha: replicas must be 2")
check(ha.get("args") == without_dry_run + ["--leader-elect"],
      f"ha: args {ha.get('args')}: the base's without --dry-run, with --leader-elect")

# The soft-taint overlay: evictions on, --soft-taint-hot-nodes, and `patch` on nodes in a
# ClusterRole of its own bound to the ServiceAccount; everything else as the base.
soft = load("soft-taint")
soft_container = container_of(only(soft, "Deployment", "soft-taint"))
check_args(soft_container.get("args", []), "soft-taint")
check(soft_container.get("args") == without_dry_run + ["--soft-taint-hot-nodes"],
      f"soft-taint: args {soft_container.get('args')}: the base's without --dry-run, with "
      "--soft-taint-hot-nodes")
soft_roles = {d["metadata"]["name"]: d for d in soft if d.get("kind") == "ClusterRole"}
check(sorted(soft_roles) == ["loadshift", "loadshift-soft-taint"],
      f"soft-taint: ClusterRoles {sorted(soft_roles)}")
check(soft_roles.get("loadshift", {}).get("rules") == cluster_role.get("rules"),
      "soft-taint: the base ClusterRole changed")
taint_rules = soft_roles.get("loadshift-soft-taint", {}).get("rules")
check(taint_rules == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["patch"]}],
      f"soft-taint: its ClusterRole must grant exactly patch on nodes, grants {taint_rules}")
soft_bindings = [d for d in soft if d.get("kind") == "ClusterRoleBinding"
                 and d.get("roleRef", {}).get("name") == "loadshift-soft-taint"]
if check(len(soft_bindings) == 1, "soft-taint: one ClusterRoleBinding of loadshift-soft-taint"):
    check(soft_bindings[0].get("roleRef", {}).get("kind") == "ClusterRole",
          "soft-taint: the binding's roleRef kind")
    check(soft_bindings[0].get("subjects") == [{"kind": "ServiceAccount", "name": sa,
                                                "namespace": NS}],
          f"soft-taint: binding subjects {soft_bindings[0].get('subjects')}")
    check(soft_bindings[0].get("metadata", {}).get("labels", {}).get(NAME_LABEL[0]) == NAME_LABEL[1],
          "soft-taint: binding label")
check(sorted(d.get("kind") for d in soft) == sorted(EXPECTED + ["ClusterRole",
                                                                "ClusterRoleBinding"]),
      f"soft-taint: kinds {sorted(d.get('kind') for d in soft)}")

# The volcano overlay: Volcano's installer's namespace, ServiceAccount and ConfigMap (read from
# its manifest), none of them rendered; evictions on; the same RBAC as the base.
with open(volcano_installer) as f:
    volcano = [d for d in yaml.safe_load_all(f) if d]
v_deployment = only(volcano, "Deployment", "Volcano's installer")
v_ns = v_deployment.get("metadata", {}).get("namespace")
v_sa = v_deployment.get("spec", {}).get("template", {}).get("spec", {}).get("serviceAccountName")
v_cm = only(volcano, "ConfigMap", "Volcano's installer")
v_cm_name = v_cm.get("metadata", {}).get("name")
check(list(v_cm.get("data", {})) == ["policy.yaml"], "Volcano's ConfigMap keys")
mine = load("volcano")
check(sorted(d.get("kind") for d in mine) == sorted(set(EXPECTED) - {"Namespace", "ServiceAccount",
                                                                   "ConfigMap"}),
      f"volcano: kinds {sorted(d.get('kind') for d in mine)}: Volcano's Namespace, "
      "ServiceAccount and ConfigMap must not be rendered")
for d in mine:
    meta = d.get("metadata", {})
    if d.get("kind") not in ("ClusterRole", "ClusterRoleBinding"):
        check(meta.get("namespace") == v_ns, f"volcano: {d.get('kind')}/{meta.get('name')} in "
              f"{meta.get('namespace')}, not {v_ns}")
v_mine = only(mine, "Deployment", "volcano")
v_pod = v_mine.get("spec", {}).get("template", {}).get("spec", {})
check(v_pod.get("serviceAccountName") == v_sa, f"volcano: runs as {v_pod.get('serviceAccountName')}"
      f", not Volcano's {v_sa}")
v_volumes = {v.get("name"): v.get("configMap", {}).get("name") for v in v_pod.get("volumes", [])}
check(v_volumes.get("policy") == v_cm_name, f"volcano: policy volume {v_volumes.get('policy')}, "
      f"not Volcano's ConfigMap {v_cm_name}")
v_container = container_of(v_mine)
check_args(v_container.get("args", []), "volcano")
check(v_container.get("args") == without_dry_run, f"volcano: args {v_container.get('args')}: "
      "the base's without --dry-run")
for kind in ("ClusterRoleBinding", "RoleBinding"):
    check(only(mine, kind, "volcano").get("subjects") ==
          [{"kind": "ServiceAccount", "name": v_sa, "namespace": v_ns}],
          f"volcano: {kind} subjects {only(mine, kind, 'volcano').get('subjects')}")
check(only(mine, "ClusterRole", "volcano").get("rules") == cluster_role.get("rules"),
      "volcano: the ClusterRole differs from the base's")
check(only(mine, "Role", "volcano").get("rules") == role.get("rules"),
      "volcano: the Role differs from the base's")
v_names = {(d.get("kind"), d.get("metadata", {}).get("name")) for d in volcano}
for d in mine:
    check((d.get("kind"), d.get("metadata", {}).get("name")) not in v_names,
          f"volcano: {d.get('kind')}/{d['metadata'].get('name')} would replace Volcano's own")
# Cluster-wide objects are shared by every install: the volcano overlay's have names of their
# own, so that it and the base side by side (or deleting one) leave the other whole.
CLUSTER_KINDS = ("ClusterRole", "ClusterRoleBinding", "Namespace")
base_cluster = {(d.get("kind"), d["metadata"].get("name")) for d in base if d.get("kind") in CLUSTER_KINDS}
for d in mine:
    if d.get("kind") in CLUSTER_KINDS:
        check((d.get("kind"), d["metadata"].get("name")) not in base_cluster,
              f"volcano: {d.get('kind')}/{d['metadata'].get('name')} has the base's name")
v_binding = only(mine, "ClusterRoleBinding", "volcano")
check(v_binding.get("roleRef", {}).get("name") == only(mine, "ClusterRole", "volcano")
      .get("metadata", {}).get("name"), f"volcano: the binding's roleRef {v_binding.get('roleRef')}")

# The monitoring overlay: the base plus a ServiceMonitor of the metrics Service's port, the
# PrometheusRule, and the dashboard ConfigMap for Grafana's sidecar.
mon = load("monitoring")
check(sorted(d.get("kind") for d in mon) == sorted(EXPECTED + ["ServiceMonitor", "PrometheusRule",
                                                               "ConfigMap"]),
      f"monitoring: kinds {sorted(d.get('kind') for d in mon)}")
for d in mon:
    meta = d.get("metadata", {})
    if d.get("kind") in ("ServiceMonitor", "PrometheusRule", "ConfigMap"):
        check(meta.get("namespace") == NS, f"monitoring: {d.get('kind')}/{meta.get('name')} in "
              f"{meta.get('namespace')}, not {NS}")
# The ServiceMonitor selects Services of its own namespace only: it must sit beside the Service.
for name in ("monitoring", "volcano-monitored"):
    docs_of = load(name)
    svc_ns = only(docs_of, "Service", name).get("metadata", {}).get("namespace")
    for kind in ("ServiceMonitor", "PrometheusRule", "ConfigMap"):
        for d in docs_of:
            if d.get("kind") == kind and d["metadata"].get("name") != v_cm_name:
                check(d["metadata"].get("namespace") == svc_ns, f"{name}: {kind}/"
                      f"{d['metadata'].get('name')} in {d['metadata'].get('namespace')}, the "
                      f"Service in {svc_ns}")
monitor = only(mon, "ServiceMonitor", "monitoring")
selector = monitor.get("spec", {}).get("selector", {}).get("matchLabels", {})
service_labels = service.get("metadata", {}).get("labels", {})
check(selector and selector.items() <= service_labels.items(),
      f"monitoring: the ServiceMonitor selects {selector}, the Service has {service_labels}")
endpoints = monitor.get("spec", {}).get("endpoints", [])
check([e.get("port") for e in endpoints] == [p.get("name") for p in sports],
      f"monitoring: ServiceMonitor endpoints {endpoints} do not scrape the Service's port")
check(all(e.get("path") == "/metrics" for e in endpoints), "monitoring: scrape path")
rule = only(mon, "PrometheusRule", "monitoring")
alerts = [r.get("alert") for g in rule.get("spec", {}).get("groups", []) for r in g.get("rules", [])]
check(len(alerts) >= 6 and all(alerts), f"monitoring: alerts {alerts}")
dashboards = [d for d in mon if d.get("kind") == "ConfigMap"
              and d.get("metadata", {}).get("labels", {}).get("grafana_dashboard") == "1"]
if check(len(dashboards) == 1, "monitoring: one ConfigMap labelled grafana_dashboard=1"):
    data = dashboards[0].get("data", {})
    check(list(data) == ["loadshift-dashboard.json"], f"monitoring: dashboard keys {list(data)}")
    try:
        check(json.loads(data.get("loadshift-dashboard.json", "")).get("uid") == "loadshift",
              "monitoring: dashboard uid")
    except ValueError as e:
        check(False, f"monitoring: the dashboard is not JSON: {e}")

user = container_of(only(load("user"), "Deployment", "user"))
check(user.get("image") == "registry.test/team/loadshift:v9.8.7",
      f"`kustomize edit set image loadshift=...` does not reach the container: {user.get('image')}")

if failures:
    for f in failures:
        print(f"render_test: {f}", file=sys.stderr)
    sys.exit(1)
if rules_out:
    with open(rules_out, "w") as f:
        json.dump(rules, f, indent=2)
        f.write("\n")
    print(f"render_test: {len(rules)} RBAC rules written to {rules_out}")
print(f"render_test: {len(base)} objects, {len(rules)} RBAC rules, "
      f"{len(collections)} collections of plan_collections() granted")
PYTHON

echo "render_test: 1 passed, 0 failed"
