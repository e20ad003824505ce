#!/usr/bin/env bash
# Builds everything and runs the whole test suite through CTest, from a fresh machine:
# installs the dependencies, configures (Release with assertions on), builds, tests.
#   bash scripts/test.sh
# Environment: BUILD_DIR (default build), JOBS (default: number of cores).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

bash scripts/install_deps.sh --test
# A clone anywhere reuses the compiler cache: paths under the source root are hashed
# relative to it.
export CCACHE_BASEDIR="$PWD"
# The library's and the test suites' precompiled headers are cacheable only so.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}pch_defines,time_macros"

# Everything ON explicitly: a build directory the quickstart configured has them OFF.
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=ON -DSTRATA_BUILD_TOOLS=ON \
  -DSTRATA_BUILD_EXAMPLES=ON -DSTRATA_BUILD_BENCH=ON
cmake --build "$BUILD_DIR" -j"$JOBS"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS"
