#!/usr/bin/env bash
# Builds the library and every test suite with AddressSanitizer + UndefinedBehaviorSanitizer
# (clang, in its own build directory) and runs the whole suite through CTest. The same
# build carries libFuzzer's coverage hooks, so scripts/fuzz.sh reuses it. CI runs it
# (.ci/run); any sanitizer report fails the test that caused it.
#   bash scripts/asan.sh
# Environment: BUILD_DIR (default build-asan), JOBS (default: number of cores).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-$(nproc)}

source scripts/sanitizer_build.sh
configure_sanitizer_build "$BUILD_DIR"
cmake --build "$BUILD_DIR" -j"$JOBS"

sanitizer_environment
# The concurrency tests' 8 threads x 1,000 predict calls per model take the stacked LSTM
# (905 time steps) over half an hour under ASan, and races are TSan's to find
# (scripts/tsan.sh): here 8 x 25 calls check the memory of the same overlapping runs.
# The resume test's long training, killed 20 times, runs 300 epochs instead of 700: a
# batch takes about five times as long here, so the kills still land in training.
STRATA_CONCURRENT_CALLS=25 STRATA_RESUME_EPOCHS=300 ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS"
