#!/usr/bin/env bash
# Installs the Debian packages loadshift needs, when missing.
# usage: scripts/setup.sh [build]
#   build: only what building the loadshift binary needs (scripts/run-example.sh: a first report
#          without the compilers, servers and linters only the tests use)
#   (none): everything to build, test and benchmark (scripts/test.sh)
# Run as root on Debian bookworm. Safe to run again: it does nothing when all are present.
set -euo pipefail

case ${1:-all} in
  build | all) ;;
  *)
    echo "usage: scripts/setup.sh [build]   (build: only the packages the binary needs)" >&2
    exit 2
    ;;
esac

packages=(
  build-essential cmake ninja-build pkg-config ccache
  libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev catch2
  libcurl4-openssl-dev prometheus-cpp-dev libcli11-dev libspdlog-dev
  libcpp-httplib-dev libssl-dev
)
if [[ ${1:-all} == all ]]; then
  packages+=(
    python3 clang libclang-rt-14-dev clang-format
    prometheus
    yamllint python3-yaml
    librsvg2-bin
  )
fi
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
