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

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j"$JOBS" --target fashion_mnist_mlp
"./$BUILD_DIR/examples/fashion_mnist_mlp" "$@"
