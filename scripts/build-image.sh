#!/usr/bin/env bash
# Builds loadshift's container image offline, from Debian's packages, into an OCI image layout
# directory (no registry, no container daemon): the Release binary and exactly what it needs at
# run time (scripts/image-rootfs.sh), one layer, entrypoint /usr/bin/loadshift, user 65532:65532,
# the org.opencontainers.image.* labels. Tagged VERSION (the project's) and latest.
# usage: scripts/build-image.sh [OCI-DIR]   (default: out/loadshift-oci)
# Then, to push it (docs/deploy.md):
#   skopeo copy oci:out/loadshift-oci:VERSION docker://REGISTRY/loadshift:VERSION
set -euo pipefail
cd "$(dirname "$0")/.."
layout=${1:-out/loadshift-oci}

./scripts/setup.sh image
version=$(sed -n 's/^project(loadshift VERSION \([0-9.]*\) .*/\1/p' CMakeLists.txt)
[[ -n $version ]] || {
  echo "build-image: no project version in CMakeLists.txt" >&2
  exit 1
}

# The binary a packager builds: Release, without precompiled headers (as scripts/test.sh).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOADSHIFT_WERROR=ON \
  -DLOADSHIFT_PCH=OFF >/dev/null
cmake --build build-release -j"$(nproc)" --target loadshift

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
./scripts/image-rootfs.sh build-release/loadshift "$work/rootfs"

rm -rf "$layout"
mkdir -p "$(dirname "$layout")"
umoci init --layout "$layout"
umoci new --image "$layout:$version"
# The files belong to root (the user 65532 only reads and runs them); without root, umoci's
# rootless mode records the builder's own uid instead.
rootless=()
if [[ $(id -u) -ne 0 ]]; then rootless=(--rootless); fi
umoci insert "${rootless[@]}" --image "$layout:$version" \
  --history.created_by "scripts/image-rootfs.sh build-release/loadshift" "$work/rootfs" /
created=$(date -u +%Y-%m-%dT%H:%M:%SZ)
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
umoci config --image "$layout:$version" \
  --created "$created" --author "loadshift" --architecture amd64 --os linux \
  --config.entrypoint /usr/bin/loadshift --config.user 65532:65532 --config.workingdir / \
  --config.env PATH=/usr/bin \
  --config.label org.opencontainers.image.title=loadshift \
  --config.label "org.opencontainers.image.description=loadshift, a load-aware descheduler for Kubernetes" \
  --config.label org.opencontainers.image.version="$version" \
  --config.label org.opencontainers.image.revision="$revision" \
  --config.label org.opencontainers.image.created="$created" \
  --config.label org.opencontainers.image.base.name=scratch \
  --history.created_by "loadshift image config"
umoci tag --image "$layout:$version" latest
umoci gc --layout "$layout"
echo "build-image: $layout:$version (and :latest), $(du -sh "$layout" | cut -f1)"
