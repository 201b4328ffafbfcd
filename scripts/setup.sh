#!/usr/bin/env bash
# Installs every Debian package loadshift needs to build, test and benchmark, when missing.
# Run as root on Debian bookworm. Safe to run again: it does nothing when all are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3 ccache
  clang libclang-rt-14-dev clang-format
  libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev catch2
  libcurl4-openssl-dev prometheus-cpp-dev libcli11-dev libspdlog-dev
  prometheus libcpp-httplib-dev libssl-dev
  yamllint python3-yaml
  librsvg2-bin
)
# test/deploy/render_test.sh also needs kubectl (kustomize built in). It is not in Debian's
# archive: the machine image brings it, and the test fails with a message when it is missing.

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "setup: missing packages: ${missing[*]}; run as root to install them" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
