#!/usr/bin/env bash
# Builds the library with ThreadSanitizer and the concurrency tests (tests/concurrency_tests, three
# files of the core and models suites) and runs them: one model predicting on 8 threads (ConcurrentPredict),
# one Program on many execution states (core's ExecutionState), the worker pool
# (ThreadPool, but for its fork test). CI runs it before the main suite (.ci/run).
#   bash scripts/tsan.sh
# Environment: BUILD_DIR (default build-tsan), JOBS (default: number of cores).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build-tsan}
JOBS=${JOBS:-$(nproc)}

bash scripts/install_deps.sh --test
# A clone anywhere reuses the compiler cache: paths under the source root are hashed
# relative to it, and the (debug-info) build directory is not hashed.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DSTRATA_SANITIZE=thread \
  -DSTRATA_BUILD_EXAMPLES=OFF -DSTRATA_BUILD_TOOLS=OFF -DSTRATA_BUILD_BENCH=OFF -DSTRATA_CUDA=OFF
cmake --build "$BUILD_DIR" -j"$JOBS" --target concurrency_tests

# halt_on_error: a race fails the run at once, with both stacks.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# 8 threads x 250 predict calls per model (the main suite makes 1,000), and 8 x 25 for the
# stacked LSTM, whose 905 time steps take a fifth of a second a call under TSan: TSan
# reports a race from the order of two accesses, not from their colliding, so a few hundred
# overlapping calls show what thousands would, in a fraction of CI's time (the 1,000 and
# 100 these were took 170 s).
# Not the pool's fork test: TSan cannot start threads in a child of a threaded process.
"$BUILD_DIR/tests/concurrency_tests" \
  --gtest_filter='ExecutionState.*:ThreadPool.*:-ThreadPool.AForkedChildBuildsItsOwnPool'
STRATA_CONCURRENT_CALLS=250 "$BUILD_DIR/tests/concurrency_tests" --gtest_filter='ConcurrentPredict.*:-*Lstm*'
STRATA_CONCURRENT_CALLS=25 "$BUILD_DIR/tests/concurrency_tests" --gtest_filter='ConcurrentPredict.*Lstm*'
