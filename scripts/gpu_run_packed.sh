#!/usr/bin/env bash
# Runs the GPU tests of a CUDA build packed here by scripts/gpu_pack.sh, on a GPU machine,
# writing logs into OUTDIR:
#   bash scripts/gpu_run_packed.sh OUTDIR [--all]
# Runs the suites' GPU tests: core's CUDA and cuDNN kernels (every op's CUDA kernel against its CPU
# one), placement, CUDA graphs and run contexts; models' CUDA graphs and placement; every
# Keras golden file predicting on cuda:0 as on the CPU (io); the GPU all-reduce in one
# process (distribution); the bench's device checks. --all then runs every suite whole, each
# GoogleTest suite in a process of its own (as CTest does).
# The steps run side by side (one GPU, 16 cores), each under a time limit (STEP_TIMEOUT,
# default 300 s), so a kernel that hangs costs its step, not the machine's time.
# OUTDIR gets summary.txt (what passed, failed and skipped per step) and a log per step.
# Exit status: 0 when every test that ran passed.
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: bash scripts/gpu_run_packed.sh OUTDIR [--all]" >&2; exit 2; }
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
ALL=0; [[ "${2:-}" == --all ]] && ALL=1
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
PKG=${PKG:-/tmp/strata-packed}
rm -rf "$PKG"; mkdir -p "$PKG"
tar -C "$PKG" -xJf .gpu-run/strata-tests.tar.xz || { echo "no .gpu-run/strata-tests.tar.xz: carry .gpu-run" >&2; exit 2; }
{
  echo "packed from $(cat "$PKG/commit"), checkout $(git describe --always --dirty --abbrev=12 2>/dev/null || echo "(no git)")"
  nvidia-smi -L 2>&1 || true
  nvidia-smi --query-gpu=driver_version,memory.total --format=csv,noheader 2>&1 || true
  echo "cores: $(nproc)"
} | tee "$OUT/summary.txt"
# The tests read their data by the paths they were built with (STRATA_TEST_DATA,
# STRATA_SHARED_DIR): the packing checkout's. Point that path at this checkout.
built_root=$(strings "$PKG/bin/core_tests" | grep -m1 -o '^/.*/tests/data$' | sed 's|/tests/data$||')
if [[ -n "$built_root" && "$built_root" != "$ROOT" && ! -e "$built_root" ]]; then
  mkdir -p "$(dirname "$built_root")" && ln -s "$ROOT" "$built_root"
  echo "linked $built_root -> $ROOT" | tee -a "$OUT/summary.txt"
fi
# The programs the tests start by the paths they were built with (the MPI job, the tools):
# put the packed ones there, unless something is there already.
place() {
  local want=$1 packed=$PKG/bin/$(basename "$1")
  [[ -n "$want" && -e "$packed" && ! -e "$want" ]] || return 0
  mkdir -p "$(dirname "$want")" && ln -s "$packed" "$want" && echo "placed $want" | tee -a "$OUT/summary.txt"
}
place "$(strings "$PKG/bin/distribution_tests" | grep -m1 -o '^/.*/mpi_job$')"
tools_dir=$(strings "$PKG/bin/io_tests" | grep -m1 -o '^/.*/tools$')
[[ -z "$tools_dir" ]] || { place "$tools_dir/strata-predict"; place "$tools_dir/strata-inspect"; }
# NVIDIA's libraries from this machine: the toolkit's and the pip wheels' (cuDNN, NCCL).
libdirs=$PKG/bin:$PKG/lib
for name in libcudart.so.13 libcublas.so.13 libcufft.so.12 libcudnn.so.9 libnccl.so.2; do
  found=$(find /usr/local/cuda*/ /usr/lib/x86_64-linux-gnu /opt /usr/local/lib -name "$name" 2>/dev/null | head -1)
  if [[ -n "$found" ]]; then libdirs=$libdirs:$(dirname "$found"); else echo "not found here: $name" | tee -a "$OUT/summary.txt"; fi
done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
missing=$(for f in "$PKG"/bin/*; do ldd "$f"; done | grep 'not found' | sort -u)
[[ -z "$missing" ]] || echo "libraries not found: $missing" | tee -a "$OUT/summary.txt"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The GPU machine has no ssh or rsh, and Open MPI's mpirun refuses to start without one even
# for processes on its own node; any program that exists satisfies it, and none is run.
export OMPI_MCA_plm_rsh_agent=false
# As under CTest: compile's default device is the CPU, the GPU tests name theirs (a test
# that needs the GPU as the default sets it itself).
export STRATA_DEFAULT_DEVICE=cpu

STEP_TIMEOUT=${STEP_TIMEOUT:-300}
# step NAME PROGRAM FILTER: runs PROGRAM's tests matching FILTER into OUTDIR/NAME.log.
step() {
  local name=$1 program=$2 filter=$3 rc=0 start=$SECONDS
  timeout -k 10 "$STEP_TIMEOUT" "$PKG/bin/$program" --gtest_filter="$filter" >"$OUT/$name.log" 2>&1 || rc=$?
  {
    echo "== $name ($program '$filter'): exit $rc after $((SECONDS - start)) s$([[ $rc == 124 || $rc == 137 ]] && echo ' (TIMED OUT)')"
    grep -E '^\[  PASSED  \] |^\[  FAILED  \] |^\[  SKIPPED \] [0-9]|tests? ran' "$OUT/$name.log" | sort -u || true
    reason=$(grep -m1 -A1 ': Skipped$' "$OUT/$name.log" | tail -1)
    [[ -z "$reason" ]] || echo "   first reason to skip: $reason"
  } >"$OUT/$name.summary"
  return $rc
}
pids=()
step core core_tests '*Cuda*:*Cudnn*:Placement.*:Device.*' & pids+=($!)
step models models_tests 'CudaGraphs.*:DevicePlacement.*' & pids+=($!)
step io io_tests '*KerasFilesOnDevices*:*KerasFileOnDevices*' & pids+=($!)
step distribution distribution_tests 'NcclAllReducer.*:GpuAllReduceChoice.*:SpreadOverGpus.*' & pids+=($!)
step bench bench_tests 'BenchDevice.*' & pids+=($!)
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
if [[ $ALL == 1 ]]; then
  # Every suite whole, as CTest runs them: each GoogleTest suite in a process of its own
  # (a process that started CUDA for one test keeps CUDA's threads for the next, whose
  # allocation counts they would join), all of them side by side.
  suites_dir=$(mktemp -d)
  for program in core models io layers losses optimizers dataset distribution bench; do
    if ! "$PKG/bin/${program}_tests" --gtest_list_tests >"$suites_dir/$program.listing" 2>&1; then
      echo "${program}_tests listing exit $?" >>"$suites_dir/listing.failed"
      continue
    fi
    awk '/^[^ ]/ {sub(/\.$/, "", $1); print $1}' "$suites_dir/$program.listing" | sed "s|^|${program}_tests |"
  done >"$suites_dir/list"
  start=$SECONDS
  # Each line: PROGRAM SUITE; its log is suites_dir/PROGRAM.SUITE.log (a / in a name as _).
  export PKG STEP_TIMEOUT SUITES_DIR=$suites_dir
  xargs -P "$(nproc)" -L 1 bash -c 'log="$SUITES_DIR/$0.${1//\//_}.log"
      timeout -k 10 "$STEP_TIMEOUT" "$PKG/bin/$0" --gtest_filter="$1.*" >"$log" 2>&1 || echo "$0 $1 exit $?" >>"$log.failed"' \
    <"$suites_dir/list"
  {
    echo "== all: $(wc -l <"$suites_dir/list") suites of 9 programs, one process each, in $((SECONDS - start)) s"
    cat "$suites_dir"/*.log | grep -hE '^\[  (PASSED  |SKIPPED )\] [0-9]+' | awk '{n[$2] += $4} END {for (k in n) print "   " k, n[k]}'
    if compgen -G "$suites_dir/*.failed" >/dev/null; then
      status=1
      cat "$suites_dir"/*.failed | sed 's/^/   FAILED process: /'
      for f in "$suites_dir"/*.failed; do grep -hs '^\[  FAILED  \] .*(' "${f%.failed}"; done | sed 's/^/   /'
      # The failed suites' whole output, for the reasons.
      for f in "$suites_dir"/*.failed; do echo "#### $(cat "$f")"; cat "${f%.failed}"; done >"$OUT/all-failed.log"
    fi
  } >"$OUT/all.summary"
fi
cat "$OUT"/*.summary | tee -a "$OUT/summary.txt"
rm -f "$OUT"/*.summary
echo "exit status $status" | tee -a "$OUT/summary.txt"
exit $status
