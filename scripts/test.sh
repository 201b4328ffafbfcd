#!/usr/bin/env bash
# Builds and runs every test: the optimized build, then the same tests under AddressSanitizer and
# UndefinedBehaviorSanitizer (the integration tests start a real Prometheus), then the JSON and
# protobuf decoders, policy-loader and usage-reader fuzz targets for a short while (clang's
# libFuzzer, two at a time). The Release build compiles beside the first tests, the fuzz targets
# beside the sanitizer tests. First, before any build, the Kubernetes manifests of deploy/ are rendered
# and checked (test/deploy/render_test.sh), and the alerts and the dashboard
# (test/deploy/monitoring_test.sh); after the Release build, the container image
# (test/deploy/image_test.sh) and the documentation's commands (test/docs/docs_test.py); after the
# first ctest, the HTML report in headless chromium (test/report/html_report_test.mjs).
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
jobs=$(nproc)
# Each stage's heading says how long the run has taken so far (the cold-machine budget is 45 min).
stage() { printf '== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
# ccache (CMakeLists.txt uses it when installed): paths relative to the checkout and the build
# directory left out of the hash, so a clean clone anywhere reuses the library objects of an
# earlier run (keyed by content: a changed file compiles again; the tests, which are given the
# checkout's absolute path, compile again in a new place).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

stage "deployment manifests (kubectl kustomize, yamllint, schemas, RBAC and pod checks)"
bash test/deploy/render_test.sh

stage "alerts and dashboard (promtool check rules, promtool test rules, dashboard queries)"
bash test/deploy/monitoring_test.sh

# A build started in the background, at low priority (nice 10), while a test suite runs: the
# suites mostly wait on the servers they start, so the compiler takes the idle cores. Waited for
# by wait_build (its log printed when it failed); an early exit stops it.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
wait_build() {
  local pid=$1 log=$2
  if ! wait "$pid"; then
    cat "$log"
    echo "the build above failed" >&2
    return 1
  fi
  tail -n 1 "$log"
}

stage "build and test (RelWithDebInfo); the Release build compiles beside the tests"
# -g1 (line tables and function names: enough for a stack and for perf) instead of -g: the full
# debug information is a quarter of the compile time of this C++ and no test reads it.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOADSHIFT_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
cmake --build build -j"$jobs"
# The Release build of loadshift, warnings as errors (what a packager builds, -O3), without
# precompiled headers: a file that forgot an #include of its own fails here.
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOADSHIFT_WERROR=ON \
  -DLOADSHIFT_PCH=OFF >/dev/null
nice -n 10 cmake --build build-release -j"$jobs" --target loadshift >build-release/build.log 2>&1 &
release_build=$!
# The run tests save the controller's page as served, for the browser test below.
mkdir -p build/pages
LOADSHIFT_PAGE_OUT="$PWD/build/pages" ctest --test-dir build --output-on-failure -j"$jobs"

stage "the HTML report in headless chromium (the example, a simulation, explain, the controller's"
echo "   page, a generated 5,000-node cluster): what it shows equals the JSON; screenshots in build/pages"
node test/report/html_report_test.mjs build/loadshift build/pages --pages build/pages --large 5000

stage "Release build of loadshift, warnings as errors, no precompiled headers (finishing)"
wait_build "$release_build" build-release/build.log

stage "the container image (scripts/build-image.sh: its files, config, and loadshift run inside)"
bash test/deploy/image_test.sh

stage "the docs: every command of README.md and docs/*.md, links, no pointer outside the repository"
python3 test/docs/docs_test.py

stage "build and test with AddressSanitizer + UndefinedBehaviorSanitizer; the fuzz targets compile beside"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g1" \
  -DLOADSHIFT_SANITIZE=ON -DLOADSHIFT_WERROR=ON -DLOADSHIFT_BENCHMARKS=OFF >/dev/null
cmake --build build-asan -j"$jobs"
# The fuzz targets: clang's libFuzzer with ASan + UBSan; -O1 -g1, the fuzzers' own build type
# (line tables enough for a crash's stack), quicker to compile than -O2 -g.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER=clang++ -DLOADSHIFT_FUZZ=ON >/dev/null
nice -n 10 cmake --build build-fuzz -j"$jobs" --target fuzz_decode fuzz_protobuf fuzz_policy \
  fuzz_usage >build-fuzz/build.log 2>&1 &
fuzz_build=$!
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

fuzz_seconds=${LOADSHIFT_FUZZ_SECONDS:-60}
stage "fuzz targets (finishing their build)"
wait_build "$fuzz_build" build-fuzz/build.log

# One target for fuzz_seconds on a copy of its corpus (test/fuzz/corpus_<name>), its output in
# build-fuzz/<target>.log.
fuzz() {
  local target=$1 corpus rc=0
  corpus=$(mktemp -d)
  cp "test/fuzz/corpus_${target#fuzz_}"/* "$corpus"/
  ./build-fuzz/test/"$target" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 \
    -print_final_stats=1 "$corpus" >"build-fuzz/$target.log" 2>&1 || rc=$?
  rm -rf "$corpus"
  return "$rc"
}
# Two targets at a time, one per core (each fuzzer is one thread): every target gets its
# fuzz_seconds, the stage half the wall time.
fuzz_pair() {
  local failed=0 pid_a pid_b target
  fuzz "$1" & pid_a=$!
  fuzz "$2" & pid_b=$!
  wait "$pid_a" || failed=1
  wait "$pid_b" || failed=1
  for target in "$1" "$2"; do
    echo "-- $target"
    tail -n 15 "build-fuzz/$target.log"
  done
  return "$failed"
}
stage "fuzz the Kubernetes JSON and protobuf decoders (${fuzz_seconds} s each, side by side)"
fuzz_pair fuzz_decode fuzz_protobuf
stage "fuzz the policy loader and the usage readers: Prometheus answers, usage files (${fuzz_seconds} s each)"
fuzz_pair fuzz_policy fuzz_usage
stage "all tests passed"
