#!/usr/bin/env bash
# Installs the Debian packages loadshift needs, when missing.
# usage: scripts/setup.sh [build|image]
#   build: only what building the loadshift binary needs (scripts/run-example.sh: a first report
#          without the compilers, servers and linters only the tests use)
#   image: that and umoci and skopeo, to build the container image and export or push it
#          (scripts/build-image.sh)
#   (none): everything to build, test and benchmark (scripts/test.sh), and the npm packages of
#           package-lock.json (the manifests' schema check; playwright-core, which drives
#           chromium through the HTML report) into node_modules/
# Run as root on Debian bookworm. Safe to run again: it does nothing when all are present.
set -euo pipefail

mode=${1:-all}
case $mode in
  build | image | all) ;;
  *)
    echo "usage: scripts/setup.sh [build|image]   (build: only the packages the binary needs;" \
      "image: and umoci, skopeo)" >&2
    exit 2
    ;;
esac

packages=(
  build-essential cmake ninja-build pkg-config ccache
  libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev catch2
  libcurl4-openssl-dev prometheus-cpp-dev libcli11-dev libspdlog-dev
  libcpp-httplib-dev libssl-dev zlib1g-dev ca-certificates
  protobuf-compiler libprotobuf-dev
)
if [[ $mode == image || $mode == all ]]; then
  packages+=(umoci skopeo)
fi
if [[ $mode == all ]]; then
  packages+=(
    python3 clang libclang-rt-14-dev clang-format
    prometheus
    yamllint python3-yaml
    librsvg2-bin
    chromium fonts-dejavu-core
  )
fi
# test/deploy/render_test.sh also needs kubectl (kustomize built in). It is not in Debian's
# archive: the machine image brings it, and the test fails with a message when it is missing.

# The npm packages need Node.js; the machine image brings it, Debian's nodejs and npm otherwise.
if [[ $mode == all ]] && ! { command -v node && command -v npm; } >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing packages: ${missing[*]}; run as root to install them" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The npm packages, exactly as package-lock.json pins them, unless node_modules/ was installed
# from this very lock (a copy of it is kept there as the stamp).
if [[ $mode == all ]]; then
  cd "$(dirname "$0")/.."
  if ! cmp -s package-lock.json node_modules/.installed-package-lock.json; then
    echo "setup: npm ci (package-lock.json)"
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.installed-package-lock.json
  fi
fi
