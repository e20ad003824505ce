#!/usr/bin/env bash
# The quickstart, from a fresh machine: installs the dependencies, builds the
# Fashion-MNIST example (Release) and runs it: a Keras-style MLP trained on the
# Fashion-MNIST files that the dataset-fashion-mnist package installs.
#   bash scripts/quickstart.sh
# Environment: BUILD_DIR (default build), JOBS (default: number of cores).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

bash scripts/install_deps.sh
# A clone anywhere reuses the compiler cache (paths hashed relative to the source root).
export CCACHE_BASEDIR="$PWD"
# The library's precompiled headers (CMakeLists.txt) are cacheable only so.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}pch_defines,time_macros"

# Only the library and the examples: the tests, tools and benchmarks need more packages
# (scripts/install_deps.sh --test, which scripts/test.sh runs).
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF -DSTRATA_BUILD_TOOLS=OFF \
  -DSTRATA_BUILD_BENCH=OFF -DSTRATA_BUILD_EXAMPLES=ON
cmake --build "$BUILD_DIR" -j"$JOBS" --target fashion_mnist_mlp
"$BUILD_DIR/examples/fashion_mnist_mlp" "$@"
