#!/usr/bin/env python3
"""Runs the commands of the user documentation (README.md and docs/*.md) and checks the text.

Code blocks marked `sh` are run as they are, in order within each file, each block as one bash
script (`set -euo pipefail`) from the checkout's root; they must succeed. Files and directories
they create at the root (build trees and node_modules/ aside) or under out/ are removed when the
file is done. The README's
`./scripts/test.sh` line is the test command CI runs (.ci/run must call it): it is not run here.

Code blocks marked `sh cluster` need a Kubernetes cluster or a registry. Each command of them runs
against an API server that is not there (a kubeconfig naming 127.0.0.1:9, nothing listening):
it must succeed, or fail only because the server or registry cannot be reached. So its flags,
its files and its kustomize directories are checked, not what the cluster would answer. A
command that reads a file an earlier command of the block wrote from the cluster (`>FILE`) cannot
be run: it is checked by `bash -n` only, and said so.

Other blocks (`text`, `yaml`, none) are not commands. A block marked `bash`, `shell` or `console`
is an error: mark it `sh`, `sh cluster` or `text`. The text may not point outside the repository
(`../shared`) or at internal issue numbers ("issue 12"), and every relative link must name a
file of the checkout and, with `#anchor`, one of its headings.

usage: test/docs/docs_test.py [FILE.md...]   (default: README.md docs/*.md)
Exits 1 with every failure, naming the file and the line.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UNREACHABLE = re.compile(
    r"connection refused|was refused|no such host|Unable to connect to the server|"
    r"dial tcp|Could(?:n't| not) connect|failed to connect|cannot reach|Connection refused")
FENCE = re.compile(r"^(\s*)```(.*)$")


def blocks(path):
    """(line, info, text) of each fenced block, de-indented."""
    out = []
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info, start = len(m.group(1)), m.group(2).strip(), i + 1
        body = []
        i += 1
        while i < len(lines) and not FENCE.match(lines[i]):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        out.append((start, info, "\n".join(body) + "\n"))
        i += 1
    return out


def commands(text):
    """The commands of a block: continuation lines joined, comments and blank lines left out;
    a here-document stays with its command."""
    out, current, heredoc = [], "", None
    for line in text.split("\n"):
        if heredoc is not None:
            current += "\n" + line
            if line.strip() == heredoc:
                out.append(current)
                current, heredoc = "", None
            continue
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current = (current + "\n" + line) if current else line
        m = re.search(r"<<-?'?(\w+)'?", line)
        if m:
            heredoc = m.group(1)
            continue
        if current.endswith("\\"):
            continue
        out.append(current)
        current = ""
    if current:
        out.append(current)
    return out


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    with open(path) as f:
        lines = f.read().split("\n")
    out, fenced = set(), False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
        if not fenced:
            out.update(re.findall(r'<a id="([^"]+)"', line))
    return out


def link_failures(path, rel, text):
    """Every relative link names a file of the checkout, and its #anchor a heading there."""
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(resolved):
                out.append(f"{rel}:{n}: link to {target}: no such file")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                out.append(f"{rel}:{n}: link to {target}: no heading with that anchor")
    return out


def entries():
    top = set(os.listdir(ROOT))
    out_dir = os.path.join(ROOT, "out")
    under_out = set(os.listdir(out_dir)) if os.path.isdir(out_dir) else set()
    return top, under_out


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.remove(path)


def clean(before):
    """Removes what the blocks of one file created, except build trees and npm packages, which
    the next files' commands use as the README's commands leave them."""
    top, under_out = entries()
    for name in under_out - before[1]:
        remove(os.path.join(ROOT, "out", name))
    for name in top - before[0]:
        if not (name.startswith("build") or name == "node_modules"):
            remove(os.path.join(ROOT, name))


def main(argv):
    files = argv[1:] or [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "*.md")))
    failures, ran, checked, syntax_only = [], 0, 0, 0
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        if "./scripts/test.sh" not in f.read():
            failures.append(".ci/run does not call ./scripts/test.sh, the README's test command")
    work = tempfile.mkdtemp(prefix="loadshift-docs-")
    kubeconfig = os.path.join(work, "kubeconfig")
    with open(kubeconfig, "w") as f:
        f.write("apiVersion: v1\nkind: Config\nclusters:\n- name: none\n  cluster:\n"
                "    server: https://127.0.0.1:9\n    insecure-skip-tls-verify: true\n"
                "contexts:\n- name: none\n  context: {cluster: none, user: none}\n"
                "current-context: none\nusers:\n- name: none\n  user: {token: none}\n")
    # A HOME of its own (kubectl's cache, nothing of the user's), ccache's directory kept.
    # (ccache says where it keeps it: its configuration may name another place than the default.)
    ccache_dir = os.environ.get("CCACHE_DIR")
    if not ccache_dir:
        try:
            r = subprocess.run(["ccache", "-k", "cache_dir"], capture_output=True, text=True)
            ccache_dir = r.stdout.strip() if r.returncode == 0 else ""
        except FileNotFoundError:
            ccache_dir = ""
    ccache_dir = ccache_dir or os.path.join(os.path.expanduser("~"), ".cache", "ccache")
    env = dict(os.environ, KUBECONFIG=kubeconfig, HOME=work, CCACHE_DIR=ccache_dir)
    try:
        for path in files:
            rel = os.path.relpath(path, ROOT)
            with open(path) as f:
                text = f.read()
            for n, line in enumerate(text.split("\n"), 1):
                if "../shared" in line:
                    failures.append(f"{rel}:{n}: points outside the repository (../shared)")
                if re.search(r"\b[Ii]ssues? \d+\b", line):
                    failures.append(f"{rel}:{n}: an internal issue number: {line.strip()[:80]}")
            failures += link_failures(path, rel, text)
            before = entries()
            try:
                for start, info, body in blocks(path):
                    where = f"{rel}:{start}"
                    words = info.split()
                    if not words or words[0] not in ("sh", "bash", "shell", "console"):
                        continue
                    if words[0] != "sh" or words[1:] not in ([], ["cluster"]):
                        failures.append(f"{where}: block marked ```{info}: mark it sh, sh cluster "
                                        "or text")
                        continue
                    if words[1:] == []:
                        script = "\n".join(c for c in commands(body)
                                           if c.split("#")[0].strip() != "./scripts/test.sh")
                        r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT,
                                           env=env, capture_output=True, text=True, timeout=1200)
                        ran += 1
                        if r.returncode != 0:
                            failures.append(f"{where}: the block failed (exit {r.returncode}):\n"
                                            f"{script}\n--- output:\n{(r.stdout + r.stderr)[-3000:]}")
                        continue
                    from_cluster = set()
                    for command in commands(body):
                        names = set(re.findall(r"[\w./-]+", command))
                        if names & from_cluster:
                            r = subprocess.run(["bash", "-n", "-c", command], capture_output=True,
                                               text=True)
                            syntax_only += 1
                            if r.returncode != 0:
                                failures.append(f"{where}: does not parse: {command}\n{r.stderr}")
                            continue
                        try:
                            r = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=ROOT,
                                               env=env, capture_output=True, text=True, timeout=120)
                        except subprocess.TimeoutExpired:
                            failures.append(f"{where}: still running after 120 s: {command}")
                            continue
                        checked += 1
                        out = r.stdout + r.stderr
                        if r.returncode != 0 and not UNREACHABLE.search(out):
                            failures.append(f"{where}: fails for another reason than the missing "
                                            f"cluster (exit {r.returncode}): {command}\n{out[-2000:]}")
                        elif r.returncode != 0:
                            from_cluster |= set(re.findall(r">\s*([\w./-]+)", command))
            finally:
                clean(before)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print(f"docs_test: {f}", file=sys.stderr)
    print(f"docs_test: {len(files)} files, {ran} sh blocks run, {checked} cluster commands checked "
          f"against no cluster, {syntax_only} parsed only (they read what a cluster command "
          f"wrote); {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
