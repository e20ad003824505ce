#!/usr/bin/env bash
# Builds everything and runs the whole test suite through CTest, from a fresh machine:
# installs the dependencies, configures (Release with assertions on), builds, tests.
#   bash scripts/test.sh
# Environment: BUILD_DIR (default build), JOBS (default: number of cores).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

bash scripts/install_deps.sh
# A clone anywhere reuses the compiler cache: paths under the source root are hashed
# relative to it.
export CCACHE_BASEDIR="$PWD"

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j"$JOBS"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS"
