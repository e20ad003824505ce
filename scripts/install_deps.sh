#!/usr/bin/env bash
# Installs what Strata needs with apt-get on Debian 12. Safe to run again: when every
# package is already installed it does nothing (no apt-get update) and returns at once.
# Runs as root, or through sudo when that is available. CUDA is optional and never
# installed here.
#   bash scripts/install_deps.sh          # the library and the quickstart
#   bash scripts/install_deps.sh --test   # and the tests, tools, server, examples, benchmarks
set -euo pipefail

# The library (and its CMake package) and the Fashion-MNIST quickstart.
PACKAGES=(
  build-essential
  cmake
  ccache
  pkg-config
  libeigen3-dev
  libhdf5-dev
  zlib1g-dev              # gzip-compressed IDX files (io/idx.cc)
  nlohmann-json3-dev
  libkissfft-dev          # KISS FFT: the rfft/irfft CPU kernels (core/cpu/kernels/spectral.cc)
  dataset-fashion-mnist   # Fashion-MNIST IDX files for the quickstart example
)
# The test suite and everything else the repository builds or runs.
TEST_PACKAGES=(
  libgtest-dev
  googletest
  fortunes                # text corpus for examples/text_generation.cc and fortune_transformer.cc
  python3-sklearn         # scikit-learn's data sets as CSV files, for examples/structured_data_classification.cc
  libtorch-dev            # PyTorch's C++ API, for bench/ comparisons
  graphviz                # `dot`, to render plot_model's diagrams
  libopenblas0-pthread    # an optimized BLAS for libtorch (else the reference BLAS makes it unfairly slow)
  libdnnl-dev             # oneDNN, the second library bench/run measures cpu::gemm against
  ocl-icd-opencl-dev      # OpenCL's headers and loader: Debian's oneDNN CMake package requires them
  libcpp-httplib-dev      # HTTP for strata-serve (serving/)
  libgrpc++-dev           # gRPC for strata-serve's TensorFlow Serving gRPC API (serving/grpc_*.cc)
  libprotobuf-dev         # protobuf, its messages (serving/proto/*.proto)
  protobuf-compiler       # protoc, which compiles them
  protobuf-compiler-grpc  # grpc_cpp_plugin, which compiles their services
  wrk                     # HTTP load generator, for bench/serve_load.sh
  python3-requests        # the REST client tests/reference/serving_client.py (not needed by the test suite)
  python3-numpy
  clang                   # the sanitizer and fuzzing build (scripts/asan.sh, scripts/fuzz.sh)
  libclang-rt-14-dev      # clang's AddressSanitizer, UBSan and libFuzzer runtimes
  libomp-14-dev           # OpenMP for clang
  libopenmpi-dev          # Open MPI: data-parallel training (distribution/), its tests under mpirun
  openmpi-bin             # mpirun
  libfftw3-dev            # FFTW, compared in bench/fft_candidates.cc only (GPL: never linked into libstrata)
)
case "${1:-}" in
  --test) PACKAGES+=("${TEST_PACKAGES[@]}") ;;
  "") ;;
  *) echo "install_deps: unknown argument '$1' (expected nothing or --test)" >&2; exit 2 ;;
esac

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install_deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install_deps: missing packages: ${missing[*]}" >&2
  echo "install_deps: run this script as root to install them" >&2
  exit 1
fi

echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y -q -o Dpkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef
          -o Dpkg::Options::=--force-confold)
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Lock::Timeout=600 update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install "${apt_opts[@]}" --no-install-recommends "${missing[@]}"
echo "install_deps: done"
