#!/usr/bin/env bash
# Builds the container image with scripts/build-image.sh (or takes OCI-DIR, already built),
# unpacks it with umoci and checks it:
#  - its files are exactly the binary, the libraries `ldd` resolves for it with their loader, the
#    CA certificates, /etc/passwd and /etc/group (user and group 65532), /etc/nsswitch.conf, /tmp:
#    no shell, nothing else;
#  - its config: entrypoint /usr/bin/loadshift, user 65532:65532, the org.opencontainers.image.*
#    labels, the project's version; the Dockerfile's runtime stage says the same;
#  - from inside it (chroot, as user 65532, nothing of the host's visible but the image's own
#    files): `loadshift version`, `loadshift validate` of the base policy, and a report of the
#    bundled example cluster; and a report whose usage comes over HTTP from a Prometheus on the
#    loopback named by a host name only /etc/hosts knows (as the kubelet's hostAliases write it),
#    so that name resolution and libcurl work inside the image;
#  - `skopeo copy` exports it as a docker-archive (what `docker load` and kind read).
# Prints the image's size. Needs root (chroot, umoci unpack), umoci and skopeo.
# usage: test/deploy/image_test.sh [OCI-DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
  echo "image_test: FAIL: $*" >&2
  exit 1
}
[[ $(id -u) -eq 0 ]] || fail "needs root (chroot and umoci unpack keep the image's owners)"
for tool in umoci skopeo; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing: run scripts/setup.sh"
done
version=$(sed -n 's/^project(loadshift VERSION \([0-9.]*\) .*/\1/p' CMakeLists.txt)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
layout=${1:-}
if [[ -z $layout ]]; then
  layout=$work/loadshift-oci
  ./scripts/build-image.sh "$layout" >"$work/build.log" 2>&1 || {
    cat "$work/build.log" >&2
    fail "scripts/build-image.sh failed"
  }
fi
[[ -f $layout/index.json ]] || fail "$layout is not an OCI image layout"

umoci unpack --image "$layout:$version" "$work/bundle" >/dev/null ||
  fail "umoci unpack of $layout:$version failed"
root=$work/bundle/rootfs
[[ -x $root/usr/bin/loadshift ]] || fail "no /usr/bin/loadshift in the image"

# The files: what ldd resolves for the image's own binary, run against the host's libraries
# (which the image copied), plus the fixed ones; the directories on their paths.
{
  echo /usr/bin/loadshift
  echo /etc/passwd
  echo /etc/group
  echo /etc/nsswitch.conf
  echo /etc/ssl/certs/ca-certificates.crt
  ldd "$root/usr/bin/loadshift" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
} | sort -u >"$work/expected-files"
grep -q '^/lib64/ld-linux' "$work/expected-files" || fail "ldd names no loader"
(cd "$root" && find . -type f -o -type l | sed 's|^\.||' | sort) >"$work/files"
if ! diff -u "$work/expected-files" "$work/files" >"$work/files.diff"; then
  cat "$work/files.diff" >&2
  fail "the image's files are not exactly the binary, its libraries and loader, certs, passwd, group"
fi
find "$root" -type l | grep -q . && fail "the image holds symbolic links"
(cd "$root" && find . -type d | sed 's|^\.||' | sort) >"$work/dirs"
while read -r d; do
  [[ -z $d || $d == /tmp ]] && continue
  grep -q "^$d/" "$work/files" || fail "directory $d holds no file of the list"
done <"$work/dirs"
for shell in /bin/sh /bin/bash /usr/bin/sh /bin/busybox; do
  [[ ! -e $root$shell ]] || fail "the image has a shell: $shell"
done
grep -qx 'nonroot:x:65532:65532:nonroot:/nonexistent:/usr/sbin/nologin' "$root/etc/passwd" ||
  fail "/etc/passwd: $(cat "$root/etc/passwd")"
grep -qx 'nonroot:x:65532:' "$root/etc/group" || fail "/etc/group: $(cat "$root/etc/group")"
grep -qx 'hosts: files dns' "$root/etc/nsswitch.conf" || fail "/etc/nsswitch.conf: hosts"
[[ $(stat -c %a "$root/tmp") == 1777 ]] || fail "/tmp is not mode 1777"
cmp -s "$root/etc/ssl/certs/ca-certificates.crt" /etc/ssl/certs/ca-certificates.crt ||
  fail "the CA certificates differ from Debian's"

# The config, and the Dockerfile's runtime stage saying the same.
python3 - "$work/bundle/config.json" "$layout" "$version" Dockerfile <<'PYTHON' || fail "image config"
import json, os, re, sys

bundle_config, layout, version, dockerfile = sys.argv[1:5]
failures = []
def check(ok, msg):
    if not ok:
        failures.append(msg)

index = json.load(open(os.path.join(layout, "index.json")))
tags = {m.get("annotations", {}).get("org.opencontainers.image.ref.name"): m for m in index["manifests"]}
check(set(tags) == {version, "latest"}, f"tags {sorted(tags)}, expected {version} and latest")
def blob(digest):
    algo, hexd = digest.split(":")
    return json.load(open(os.path.join(layout, "blobs", algo, hexd)))
manifest = blob(tags[version]["digest"])
check(len(manifest["layers"]) == 1, f"{len(manifest['layers'])} layers, expected one")
config = blob(manifest["config"]["digest"])
c = config.get("config", {})
check(c.get("Entrypoint") == ["/usr/bin/loadshift"], f"entrypoint {c.get('Entrypoint')}")
check(not c.get("Cmd"), f"cmd {c.get('Cmd')}")
check(c.get("User") == "65532:65532", f"user {c.get('User')}")
check(config.get("architecture") == "amd64" and config.get("os") == "linux", "platform")
labels = c.get("Labels", {})
check(labels.get("org.opencontainers.image.title") == "loadshift", "title label")
check(labels.get("org.opencontainers.image.version") == version, "version label")
for key in ("description", "revision", "created", "base.name"):
    check(labels.get(f"org.opencontainers.image.{key}"), f"no org.opencontainers.image.{key} label")
runtime = json.load(open(bundle_config))
check(runtime["process"]["args"] == ["/usr/bin/loadshift"], f"runtime args {runtime['process']['args']}")
check(runtime["process"]["user"]["uid"] == 65532 and runtime["process"]["user"]["gid"] == 65532,
      f"runtime user {runtime['process']['user']}")

text = open(dockerfile).read()
stage = text[text.rindex("FROM scratch"):]
check("COPY --from=build /rootfs/ /" in stage, "Dockerfile: the runtime stage copies /rootfs")
check("./scripts/image-rootfs.sh build-release/loadshift /rootfs" in text,
      "Dockerfile: the build stage does not lay out /rootfs with scripts/image-rootfs.sh")
check(re.search(r'^USER 65532:65532$', stage, re.M), "Dockerfile: USER 65532:65532")
check(re.search(r'^ENTRYPOINT \["/usr/bin/loadshift"\]$', stage, re.M), "Dockerfile: ENTRYPOINT")
check(re.search(rf'^ARG VERSION={re.escape(version)}$', stage, re.M), "Dockerfile: ARG VERSION")
docker_labels = dict(re.findall(r'(org\.opencontainers\.image\.[\w.]+)="([^"]*)"', stage))
for key, value in docker_labels.items():
    if key == "org.opencontainers.image.version":
        value = value.replace("${VERSION}", version)
    check(labels.get(key) == value, f"Dockerfile label {key}={value!r}, image has {labels.get(key)!r}")
check(set(docker_labels) == set(labels) - {"org.opencontainers.image.revision",
                                           "org.opencontainers.image.created"},
      f"Dockerfile labels {sorted(docker_labels)} vs image labels {sorted(labels)}")
if failures:
    for f in failures:
        print(f"image_test: {f}", file=sys.stderr)
    sys.exit(1)
PYTHON

# Run it from inside: chroot into the image as 65532, with the inputs copied into its /tmp.
# env -i: no proxy or other variable of the host reaches it.
chroot=$(command -v chroot) || fail "chroot not found"
in_image() {
  env -i "$chroot" --userspec=65532:65532 "$root" /usr/bin/loadshift "$@"
}
out=$(in_image version) || fail "loadshift version in the image: $out"
[[ $out == *"loadshift $version"* ]] || fail "loadshift version printed: $out"
cp deploy/base/policy.yaml examples/seed-cluster/cluster.yaml examples/seed-cluster/usage.json \
  test/data/shared/seed-examples/05-load-aware-policy.yaml "$root/tmp/"
chmod 0644 "$root"/tmp/*
out=$(in_image validate /tmp/policy.yaml) || fail "loadshift validate in the image: $out"
[[ $out == *"policy.yaml: valid"* ]] || fail "loadshift validate printed: $out"
out=$(in_image report --policy /tmp/05-load-aware-policy.yaml --snapshot /tmp/cluster.yaml \
  --usage /tmp/usage.json 2>&1) ||
  fail "loadshift report in the image: $out"
[[ $out == *"te3"* ]] || fail "the report from the image names no node: $out"

# Over the network: a Prometheus on the loopback answering every instant query with the seed
# usage (te3 at 92% cpu), reached as prometheus.test, which only the image's /etc/hosts knows.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$port" >"$work/prometheus.log" 2>&1 <<'PYTHON' &
import json, sys, time, urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

USAGE = {"te1": (45, 50), "te2": (55, 60), "te3": (92, 70), "te4": (25, 28),
         "te5": (20, 25), "te6": (12, 18), "te7": (48, 40), "te8": (15, 22)}

class Prometheus(BaseHTTPRequestHandler):
    def answer(self, form):
        query = form.get("query", [""])[0]
        if not self.path.startswith("/api/v1/query"):
            self.send_error(404)
            return
        memory = "memory" in query or "Mem" in query
        result = [] if "container" in query else [
            {"metric": {"instance": node}, "value": [time.time(), str(v[1] if memory else v[0])]}
            for node, v in USAGE.items()]
        body = json.dumps({"status": "success",
                           "data": {"resultType": "vector", "result": result}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.answer(urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query))

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        self.answer(urllib.parse.parse_qs(self.rfile.read(length).decode()))

HTTPServer(("127.0.0.1", int(sys.argv[1])), Prometheus).serve_forever()
PYTHON
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do
  python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
    "$port" 2>/dev/null && break
  sleep 0.1
done
# A DNS server that knows no name (NXDOMAIN for every question), as a cluster's DNS answers for
# a name only hostAliases know: the name resolves only if the image consults /etc/hosts before
# DNS, as its /etc/nsswitch.conf says.
python3 - >"$work/dns.log" 2>&1 <<'PYTHON' &
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.77", 53))
while True:
    query, peer = s.recvfrom(512)
    if len(query) < 12:
        continue
    print("question", len(query), flush=True)
    # The question back, flagged: a response (QR), recursion available, rcode 3 (NXDOMAIN).
    flags = bytes([0x80 | (query[2] & 0x01), 0x83])
    s.sendto(query[:2] + flags + query[4:6] + b"\0\0\0\0\0\0" + query[12:], peer)
PYTHON
dns=$!
trap 'kill "$server" "$dns" 2>/dev/null || true; rm -rf "$work"' EXIT
printf 'nameserver 127.0.0.77\noptions timeout:1 attempts:1\n' >"$root/etc/resolv.conf"
printf '127.0.0.1 prometheus.test\n' >"$root/etc/hosts"
sleep 0.3
kill -0 "$dns" 2>/dev/null || fail "the stub DNS server did not start: $(cat "$work/dns.log")"
report_over_http() {
  in_image report --policy /tmp/05-load-aware-policy.yaml --snapshot /tmp/cluster.yaml \
    --prometheus "http://prometheus.test:$port" 2>&1
}
out=$(report_over_http) ||
  fail "loadshift report with usage from http://prometheus.test:$port in the image: $out"
[[ $out == *"usage: prometheus http://prometheus.test:$port"* && $out == *"te3 -> te8"* ]] ||
  fail "the report in the image did not read usage over HTTP: $out"
# The image's resolver follows its nsswitch.conf and asks that DNS: told to take DNS's "no such
# name" as the answer, it cannot reach Prometheus. (glibc's own default without the file is files
# first too; the file says so for every libc and keeps it from changing.)
cp "$root/etc/nsswitch.conf" "$work/nsswitch.conf"
printf 'hosts: dns [NOTFOUND=return] files\n' >"$root/etc/nsswitch.conf"
if out=$(report_over_http); then
  fail "the report resolved prometheus.test with DNS first: the stub DNS was not asked: $out"
fi
[[ $out == *"cannot resolve the server name prometheus.test"* ]] ||
  fail "with DNS first, the report failed for another reason than the name: $out"
grep -q question "$work/dns.log" || fail "the stub DNS was never asked"
cp "$work/nsswitch.conf" "$root/etc/nsswitch.conf"
rm -f "$root"/tmp/* "$root/etc/hosts" "$root/etc/resolv.conf"

skopeo copy --quiet "oci:$layout:$version" "docker-archive:$work/loadshift.tar:loadshift:$version" ||
  fail "skopeo copy to a docker-archive failed"
tar -tf "$work/loadshift.tar" | grep -q manifest.json || fail "the docker-archive has no manifest"

size=$(du -sb "$layout/blobs" | cut -f1)
compressed=$(python3 -c '
import json, os, sys
layout = sys.argv[1]
index = json.load(open(os.path.join(layout, "index.json")))
d = index["manifests"][0]["digest"].split(":")
m = json.load(open(os.path.join(layout, "blobs", d[0], d[1])))
print(sum(l["size"] for l in m["layers"]))' "$layout")
echo "image_test: loadshift:$version: $(wc -l <"$work/files") files, $(du -sh "$root" | cut -f1) unpacked," \
  "layer $((compressed / 1024 / 1024)) MiB compressed ($compressed bytes), layout $size bytes"
echo "image_test: 1 passed, 0 failed"
