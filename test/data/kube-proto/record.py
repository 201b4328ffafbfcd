#!/usr/bin/env python3
"""Records what test/model/protobuf_*_test.cc check loadshift's protobuf decoder against, from the
kubectl on this machine (a real Kubernetes build: its k8s.io/api and apimachinery code):

- kubectl-descriptors.binpb: the FileDescriptorSet of the API's generated.proto files that
  loadshift's messages (model/proto/) take from, as kubectl carries them (gogo-protobuf registers
  each file's descriptor, gzipped, in the binary). The published field numbers, from a build;
  the fake API server encodes its Pods and Nodes with every field these define.
- kubectl-debug-copy.pb: the request body kubectl sends for `kubectl debug trainer-0 --copy-to`:
  rich-pod.json (served to it as JSON) copied and encoded by kubectl's own protobuf serializer,
  "k8s\\0" envelope included.

usage: test/data/kube-proto/record.py   (needs kubectl on PATH; writes beside this file)
"""
import gzip
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
# In dependency order (a pool built from the set takes them one by one): the files loadshift's
# messages take from, and what they import (gogo.proto aside: only its options are used).
WANTED = [
    "k8s.io/apimachinery/pkg/runtime/schema/generated.proto",
    "k8s.io/apimachinery/pkg/runtime/generated.proto",
    "k8s.io/apimachinery/pkg/api/resource/generated.proto",
    "k8s.io/apimachinery/pkg/util/intstr/generated.proto",
    "k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto",
    "k8s.io/api/core/v1/generated.proto",
]


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_varint(data, pos):
    shift = value = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def file_name(descriptor):
    """FileDescriptorProto.name (field 1), or None."""
    if not descriptor or descriptor[0] != 0x0A:
        return None
    length, pos = read_varint(descriptor, 1)
    try:
        return descriptor[pos:pos + length].decode()
    except UnicodeDecodeError:
        return None


def extract_descriptors(kubectl):
    data = open(kubectl, "rb").read()
    found = {}
    for match in re.finditer(b"\x1f\x8b\x08\x00\x00\x00\x00\x00", data):
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[match.start():match.start() + (4 << 20)])
        except zlib.error:
            continue
        name = file_name(raw)
        if name in WANTED and name not in found:
            found[name] = raw
    missing = [n for n in WANTED if n not in found]
    if missing:
        sys.exit("record.py: %s carries no descriptor of %s" % (kubectl, ", ".join(missing)))
    # FileDescriptorSet { repeated FileDescriptorProto file = 1; }
    return b"".join(b"\x0a" + varint(len(found[n])) + found[n] for n in WANTED)


def record_debug_copy(kubectl):
    pod = json.load(open(os.path.join(HERE, "rich-pod.json")))
    posted = []
    discovery = {
        "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []},
        "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": []},
        "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
            {"name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod",
             "verbs": ["create", "get", "list"]}]},
    }

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, status, body, content_type="application/json"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = self.path.split("?")[0]
            if path in discovery:
                return self.answer(200, json.dumps(discovery[path]).encode())
            if path == "/api/v1/namespaces/ml/pods/trainer-0":
                return self.answer(200, json.dumps(pod).encode())
            self.answer(404, b'{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}')

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            posted.append((self.headers.get("Content-Type"), body))
            self.answer(201, body, self.headers.get("Content-Type"))

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "kubeconfig")
        with open(config, "w") as f:
            f.write("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                    "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:%d'}}]\n"
                    "users: [{name: u, user: {token: t}}]\n"
                    "contexts: [{name: c, context: {cluster: c, user: u, namespace: ml}}]\n"
                    % server.server_address[1])
        subprocess.run([kubectl, "--kubeconfig", config, "debug", "trainer-0", "--copy-to=trainer-copy",
                        "--same-node", "--keep-labels", "--keep-annotations", "--keep-liveness",
                        "--keep-readiness", "--keep-init-containers", "--share-processes=false",
                        "--set-image=main=trainer:2.1", "--attach=false", "--quiet"],
                       check=True, timeout=60, stdout=subprocess.DEVNULL)
    server.shutdown()
    if len(posted) != 1 or posted[0][0] != "application/vnd.kubernetes.protobuf":
        sys.exit("record.py: expected one protobuf POST from kubectl, got %r" % [p[0] for p in posted])
    return posted[0][1]


def main():
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        sys.exit("record.py: kubectl is not on PATH")
    version = subprocess.run([kubectl, "version", "--client", "-o", "json"], check=True,
                             capture_output=True, text=True).stdout
    open(os.path.join(HERE, "kubectl-descriptors.binpb"), "wb").write(extract_descriptors(kubectl))
    open(os.path.join(HERE, "kubectl-debug-copy.pb"), "wb").write(record_debug_copy(kubectl))
    open(os.path.join(HERE, "kubectl-version.txt"), "w").write(
        json.loads(version)["clientVersion"]["gitVersion"] + "\n")


if __name__ == "__main__":
    main()
