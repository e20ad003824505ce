#!/usr/bin/env bash
# Builds Strata with its CUDA backend on a GPU machine and runs the GPU tests, writing
# logs and results into OUTDIR (issue #12, point 8):
#   bash scripts/gpu_check.sh OUTDIR [--all]
# Default: builds the core, models and distribution suites, runs the CUDA and placement
# tests and the GPU all-reduce tests (two processes on the GPU under the carried Open
# MPI among them), then the core, models and distribution suites. --all builds
# everything the tests need and runs every suite. Then the benchmark suite on the GPU
# (issue #12, point 6): the same build directory is configured again with the bench on,
# against the libtorch that pip's torch wheel ships
# (its C++ headers, libraries and CMake config, built with CUDA), strata_bench is built
# and `strata_bench --device=cuda --no_keras --reps=5` runs into OUTDIR/bench/
# (bench.log), then the LSTM and BiLSTM again on the own recurrent kernels instead of
# cuDNN's RNN (STRATA_CUDNN_RNN=0, OUTDIR/bench-own-rnn/). A bench that cannot be
# configured, built or run is said so in summary.txt and does not change the exit
# status, which is the tests'.
#
# The GPU machine (the device tool) has the CUDA toolkit, CMake and a compiler but none
# of Debian's -dev packages and no network: the build's dependencies come from Debian
# packages fetched here beforehand (scripts/fetch_gpu_packages.sh, into .gpu-debs/),
# unpacked with dpkg -x into a prefix, never into /. From the device tool:
#   run(command="bash scripts/gpu_check.sh $OUT", carry=[".gpu-debs"])
#
# Environment: DEBS (default .gpu-debs), PREFIX (default /tmp/strata-gpu-deps), CUDNN_ROOT
# (a cuDNN outside the system's directories; default: the pip wheel's when the system has none),
# NCCL_ROOT (likewise for NCCL),
# BUILD_DIR (default build-gpu), JOBS (default: the number of cores), CUDA_ARCH (default
# 90), GPU_CHECK_CMAKE_ARGS (more configure arguments); for the bench: BENCH (0: skip
# it), PYTHON (default python3: the one whose torch is used), BENCH_ARGS (default
# "--reps=5"), BENCH_TIMEOUT (seconds, default 420). Exit status: 0 when every test that
# ran passed.
set -euo pipefail

usage() { echo "usage: bash scripts/gpu_check.sh OUTDIR [--all]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
ALL=0
case "${2:-}" in --all) ALL=1 ;; "") ;; *) usage ;; esac
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DEBS=${DEBS:-.gpu-debs}
PREFIX=${PREFIX:-/tmp/strata-gpu-deps}
BUILD_DIR=${BUILD_DIR:-build-gpu}
JOBS=${JOBS:-$(nproc)}
step() { echo "gpu_check: $*"; }
fail() { echo "gpu_check: FAILED: $*" | tee -a "$OUT/summary.txt" >&2; exit 1; }
: >"$OUT/summary.txt"

step "machine"
{
  if command -v nvidia-smi >/dev/null; then nvidia-smi -L 2>&1 || true; else echo "nvidia-smi: not on PATH"; fi
  nvcc --version 2>&1 | tail -2 || echo "nvcc: not on PATH"
  "${CXX:-c++}" --version 2>&1 | head -1
  cmake --version | head -1
  echo "cores: $(nproc)"
  "${PYTHON:-python3}" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda,
      "cuDNN", torch.backends.cudnn.version(), "GPU visible:", torch.cuda.is_available())' 2>&1 |
    tail -1 || echo "torch: not importable by ${PYTHON:-python3}"
} | tee "$OUT/machine.txt"

step "unpacking $DEBS/*.deb into $PREFIX"
compgen -G "$DEBS/*.deb" >/dev/null ||
  fail "no .deb files in $DEBS: run scripts/fetch_gpu_packages.sh where apt works, and carry $DEBS"
rm -rf "$PREFIX"
mkdir -p "$PREFIX"
for deb in "$DEBS"/*.deb; do dpkg -x "$deb" "$PREFIX"; done
# Debian's links point at absolute paths (libz.so -> /lib/.../libz.so.1.2.13): point
# them into the prefix instead.
while IFS= read -r link; do
  target=$(readlink "$link")
  if [[ "$target" == /* && -e "$PREFIX$target" ]]; then ln -sfn "$PREFIX$target" "$link"; fi
done < <(find "$PREFIX" -type l)
# Libraries this machine has already are taken from it: a library of the prefix is
# removed where the loader knows its name (glibc and the rest keep matching versions).
LIBDIRS="$PREFIX/usr/lib/x86_64-linux-gnu:$PREFIX/lib/x86_64-linux-gnu:$PREFIX/usr/lib/x86_64-linux-gnu/hdf5/serial"
if command -v ldconfig >/dev/null; then
  known=$(ldconfig -p | awk '{print $1}')
  removed=0
  for dir in ${LIBDIRS//:/ }; do
    [[ -d "$dir" ]] || continue
    for lib in "$dir"/lib*.so.*; do
      [[ -e "$lib" ]] || continue
      # Open MPI's own libraries stay: its programs, libraries and components are one set.
      case $(basename "$lib") in libmpi*|libopen-rte*|libopen-pal*|libpmix*|libmca_common*|liboshmem*) continue ;; esac
      if grep -qxF "$(basename "$lib")" <<<"$known"; then rm -f "$lib"; removed=$((removed + 1)); fi
    done
  done
  step "$removed libraries of the prefix left out: this machine has them"
fi

# Open MPI (the data-parallel tests' jobs, two processes on this machine's GPU), from the
# prefix: Debian's build, relocated by OPAL_PREFIX, and PMIx's by PMIX_PREFIX and its
# component path. When it runs (a probe of two processes), the build has MPI and the
# multi-process GPU tests run; otherwise MPI is off and they skip.
mpi_args=(-DSTRATA_MPI=OFF)
MPIRUN="$PREFIX/usr/bin/mpirun.openmpi"
if [[ -x "$MPIRUN" ]]; then
  export OPAL_PREFIX="$PREFIX/usr"
  export PMIX_PREFIX="$PREFIX/usr/lib/x86_64-linux-gnu/pmix2"
  export PMIX_MCA_mca_base_component_path="$PMIX_PREFIX/lib/pmix"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
  LIBDIRS="$LIBDIRS:$PREFIX/usr/lib/x86_64-linux-gnu/openmpi/lib"
  if LD_LIBRARY_PATH="$LIBDIRS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 60 \
      "$MPIRUN" -np 2 --oversubscribe --bind-to none true >"$OUT/mpi-probe.log" 2>&1; then
    mpi_args=(-DSTRATA_MPI=ON "-DMPI_C_COMPILER=$PREFIX/usr/bin/mpicc.openmpi" "-DMPIEXEC_EXECUTABLE=$MPIRUN")
    step "Open MPI from the prefix runs two processes: MPI on"
  else
    echo "Open MPI from the prefix did not run two processes (mpi-probe.log):" \
      "MPI off, the multi-process GPU tests skip" | tee -a "$OUT/summary.txt"
  fi
fi

# A library of NVIDIA's that the build uses when it finds it: the system's when it has
# one, else the one the machine's PyTorch wheel ships (nvidia/<name>/{include,lib}, the
# libraries under versioned names only), given to CMake as <NAME>_ROOT and to the loader.
# $1: the CMake variable (CUDNN_ROOT), $2: the wheel's module (nvidia.cudnn), $3: the
# header that marks it, $4: what is lost without it; then the system's headers to look for.
# Sets <NAME>_ROOT where it used a wheel's, and appends to cmake_roots and LIBDIRS.
cmake_roots=()
find_nvidia_library() {
  local var=$1 module=$2 header=$3 without=$4 root="" py dir h sub system=0
  shift 4
  for h in "$@"; do if [[ -e "$h" ]]; then system=1; fi; done
  root=${!var:-}
  if [[ -z "$root" && $system == 0 ]]; then
    for py in "${PYTHON:-python3}" /opt/torch/.venv/bin/python3; do
      command -v "$py" >/dev/null || continue
      dir=$("$py" -c "import $module as m; print(list(m.__path__)[0])" 2>/dev/null || true)
      if [[ -n "$dir" && -e "$dir/include/$header" ]]; then root=$dir; break; fi
    done
  fi
  if [[ -n "$root" ]]; then
    step "${module#nvidia.} from $root"
    printf -v "$var" '%s' "$root"
    cmake_roots+=("-D$var=$root")
    for sub in lib lib64; do
      if [[ -d "$root/$sub" ]]; then LIBDIRS="$LIBDIRS:$root/$sub"; fi
    done
  elif [[ $system == 0 ]]; then
    step "no ${module#nvidia.} found (neither the system's nor a pip wheel's): $without"
  fi
  return 0
}
# cuDNN (the convolutions' CUDA kernels: nvidia-cudnn-cu13 or -cu12) and NCCL (the GPU
# all-reduce of data-parallel training: nvidia-nccl-cu13). Without them the build works.
find_nvidia_library CUDNN_ROOT nvidia.cudnn cudnn_version.h "convolutions will have no CUDA kernel" \
  /usr/include/cudnn_version.h /usr/include/x86_64-linux-gnu/cudnn_version.h /usr/local/cuda/include/cudnn_version.h
find_nvidia_library NCCL_ROOT nvidia.nccl nccl.h "GPU gradients will be summed through host memory" \
  /usr/include/nccl.h /usr/local/cuda/include/nccl.h

step "configuring $BUILD_DIR (log: configure.log)"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
rpath_link="-Wl,-rpath-link,${LIBDIRS//:/,-rpath-link,}"
export CMAKE_PREFIX_PATH="$PREFIX/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
# HDF5 is found by its files in the prefix: Debian's wrapper (h5cc) would report /usr
# paths, so FindHDF5 is given one that does not exist and searches instead.
# shellcheck disable=SC2086  # GPU_CHECK_CMAKE_ARGS is a list of arguments
if ! cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DSTRATA_BUILD_TESTS=ON -DSTRATA_BUILD_TOOLS=OFF -DSTRATA_BUILD_EXAMPLES=OFF \
    -DSTRATA_BUILD_BENCH=OFF -DSTRATA_BUILD_SERVING=OFF "${mpi_args[@]}" \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DHDF5_PREFER_PARALLEL=OFF \
    -DHDF5_C_COMPILER_EXECUTABLE="$PREFIX/no-h5cc" \
    "-DCMAKE_EXE_LINKER_FLAGS=$rpath_link" "-DCMAKE_SHARED_LINKER_FLAGS=$rpath_link" \
    "${cmake_roots[@]}" ${GPU_CHECK_CMAKE_ARGS:-} >"$OUT/configure.log" 2>&1; then
  tail -30 "$OUT/configure.log"
  fail "configure (see configure.log)"
fi
grep -q "Strata: CUDA backend ON" "$OUT/configure.log" ||
  fail "CMake did not enable the CUDA backend (nvcc, the CUDA toolkit and cuBLAS are needed; see configure.log)"
grep -E "Strata: (cuDNN|NCCL|MPI)" "$OUT/configure.log" | tee -a "$OUT/summary.txt" || true

targets=(--target core_tests models_tests distribution_tests)
[[ $ALL == 1 ]] && targets=()
step "building ${targets[*]:-everything} with $JOBS jobs (log: build.log)"
start=$SECONDS
if ! cmake --build "$BUILD_DIR" -j"$JOBS" "${targets[@]}" >"$OUT/build.log" 2>&1; then
  grep -m20 -B2 -A6 "error" "$OUT/build.log" || tail -40 "$OUT/build.log"
  fail "build (see build.log)"
fi
step "built in $((SECONDS - start)) s"

# The prefix's libraries at run time (libhdf5 and what this machine lacks of its needs).
export LD_LIBRARY_PATH="$LIBDIRS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
status=0
step "CUDA and placement tests (cuda_tests.xml, cuda_tests.log)"
if ! "$BUILD_DIR/tests/core_tests" --gtest_filter='*Cuda*:Placement.*' --gtest_output="xml:$OUT/cuda_tests.xml" \
    >"$OUT/cuda_tests.log" 2>&1; then
  status=1
fi
{
  echo "CUDA and placement tests:"
  grep -E '^\[  PASSED  \] [0-9]+ tests?\.|^\[  FAILED  \] |^\[  SKIPPED \] [0-9]+ tests?,' \
    "$OUT/cuda_tests.log" || true
  reason=$(grep -m1 -A1 ': Skipped$' "$OUT/cuda_tests.log" | tail -1 || true)
  if [[ -n "$reason" ]]; then echo "first reason to skip: $reason"; fi
} | tee -a "$OUT/summary.txt"
step "GPU all-reduce tests (nccl_tests.xml, nccl_tests.log)"
# STRATA_DEFAULT_DEVICE=cpu as under CTest: SameAnswerOnGpus trains its reference on the CPU.
if ! STRATA_DEFAULT_DEVICE=cpu "$BUILD_DIR/tests/distribution_tests" \
    --gtest_filter='NcclAllReducer.*:GpuAllReduceChoice.*:SpreadOverGpus.*:SameAnswerOnGpus.*' \
    --gtest_output="xml:$OUT/nccl_tests.xml" >"$OUT/nccl_tests.log" 2>&1; then
  status=1
fi
{
  echo "GPU all-reduce tests:"
  grep -E '^NCCL |^\[  PASSED  \] [0-9]+ tests?\.|^\[  FAILED  \] |^\[  SKIPPED \] [0-9]+ tests?,' \
    "$OUT/nccl_tests.log" || true
} | tee -a "$OUT/summary.txt"
if [[ $ALL == 1 ]]; then
  label=(); what="every suite"
else
  label=(-L "core|models|distribution"); what="the core, models and distribution suites"
fi
step "ctest: $what (ctest.log)"
if ! ctest --test-dir "$BUILD_DIR" "${label[@]}" -j"$JOBS" --output-on-failure >"$OUT/ctest.log" 2>&1; then
  status=1
fi
{
  echo "ctest, $what:"
  sed -n '/tests passed\|tests failed/,$p' "$OUT/ctest.log" | grep -v '(Skipped)$' || true
  echo "$(grep -c '(Skipped)$' "$OUT/ctest.log" || true) tests skipped (ctest.log lists them)"
} | tee -a "$OUT/summary.txt"
if [[ $status == 0 ]]; then
  step "all tests that ran passed"
else
  step "FAILURES: see summary.txt, cuda_tests.log, ctest.log"
fi

# The benchmark suite on the GPU. Every failure here is reported, never fatal: the exit
# status stays the tests'.
bench_report() { echo "bench (strata_bench --device=cuda): $*" | tee -a "$OUT/summary.txt"; }
run_bench() {
  local python=${PYTHON:-python3} torch_prefix
  if ! torch_prefix=$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>"$OUT/bench-configure.log"); then
    bench_report "NOT RUN: $python cannot import torch, whose libtorch the bench builds against (bench-configure.log)"
    return
  fi
  step "bench: configuring $BUILD_DIR with the bench on, Torch_DIR=$torch_prefix/Torch (bench-configure.log)"
  # TORCH_CUDA_ARCH_LIST: libtorch's CMake config asks for one, else it probes the GPU.
  if ! TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0} cmake "$BUILD_DIR" -DSTRATA_BUILD_BENCH=ON \
      "-DTorch_DIR=$torch_prefix/Torch" >>"$OUT/bench-configure.log" 2>&1; then
    tail -30 "$OUT/bench-configure.log"
    bench_report "NOT RUN: configuring with libtorch failed (bench-configure.log)"
    return
  fi
  if ! grep -q "bench: strata_bench" "$OUT/bench-configure.log"; then
    bench_report "NOT RUN: CMake did not find libtorch at $torch_prefix/Torch (bench-configure.log)"
    return
  fi
  step "bench: building strata_bench (bench-build.log)"
  if ! cmake --build "$BUILD_DIR" -j"$JOBS" --target strata_bench >"$OUT/bench-build.log" 2>&1; then
    grep -m20 -B2 -A6 "error" "$OUT/bench-build.log" || tail -40 "$OUT/bench-build.log"
    bench_report "NOT RUN: building strata_bench failed (bench-build.log)"
    return
  fi
  step "bench: strata_bench --device=cuda --no_keras ${BENCH_ARGS:---reps=5} (bench.log, bench/)"
  local rc=0
  # shellcheck disable=SC2086  # BENCH_ARGS is a list of arguments
  timeout "${BENCH_TIMEOUT:-420}" "$BUILD_DIR/bench/strata_bench" --device=cuda --no_keras ${BENCH_ARGS:---reps=5} \
    "--results_dir=$OUT/bench" >"$OUT/bench.log" 2>&1 || rc=$?
  if [[ $rc == 124 ]]; then
    bench_report "STOPPED after ${BENCH_TIMEOUT:-420} s (bench.log has what it printed)"
  elif [[ $rc != 0 ]]; then
    bench_report "FAILED, exit status $rc: $(tail -1 "$OUT/bench.log")"
  else
    bench_report "ran; results in bench/results.md and bench/results.csv"
    {
      sed -n '/^Targets (/,/^$/p' "$OUT/bench.log"
      grep -E '^per-step host overhead|^CUDA graphs:|^with and without CUDA graphs|^GEMM peak|^strata: not run|^strata/libtorch' \
        "$OUT/bench.log" || true
    } | tee -a "$OUT/summary.txt"
    # The recurrent workloads again on the own kernels (STRATA_CUDNN_RNN=0): what cuDNN's
    # RNN gains over them, the two runs side by side.
    step "bench: lstm and bilstm with STRATA_CUDNN_RNN=0 (bench-own-rnn.log, bench-own-rnn/)"
    rc=0
    STRATA_CUDNN_RNN=0 timeout "${BENCH_TIMEOUT:-420}" "$BUILD_DIR/bench/strata_bench" --device=cuda --no_keras \
      --workloads=lstm,bilstm --reps=3 "--results_dir=$OUT/bench-own-rnn" >"$OUT/bench-own-rnn.log" 2>&1 || rc=$?
    if [[ $rc != 0 ]]; then
      bench_report "own recurrent kernels (STRATA_CUDNN_RNN=0): exit status $rc (bench-own-rnn.log)"
    else
      bench_report "own recurrent kernels (STRATA_CUDNN_RNN=0): bench-own-rnn/results.md, against bench/results.md"
    fi
  fi
}
if [[ ${BENCH:-1} == 0 ]]; then
  bench_report "skipped (BENCH=0)"
else
  run_bench
fi
exit $status
