#!/usr/bin/env bash
# Data-parallel training on this machine (issue #16): runs build/bench/strata_bench_distributed
# under mpirun with 1 and then 2 processes, alternating, --reps times, and prints each
# measurement and, per workload, the median step time at each N with its spread (min-max)
# and the ratio N=2 / N=1 of the same repetition. The global batch is the same at both N,
# and so are the cores (N=1 computes with every core, N=2 with half each): ideal is 1.0.
#   bench/distributed.sh                    # 3 repetitions of mlp, lstm, cnn
#   bench/distributed.sh --reps=5 --workloads=mlp
# Builds the target first in build/ (configured as bench/run does).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
reps=3
args=()
for arg in "$@"; do
  case "$arg" in
    --reps=*) reps="${arg#--reps=}" ;;
    *) args+=("$arg") ;;
  esac
done
if [[ ! -f "$build/CMakeCache.txt" ]]; then cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release; fi
cmake --build "$build" --target strata_bench_distributed -j "$(nproc)" >/dev/null
command -v mpirun >/dev/null || { echo "bench/distributed.sh: mpirun not found (Debian: openmpi-bin)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for ((r = 1; r <= reps; ++r)); do
  for n in 1 2; do
    extra=()
    [[ $r -gt 1 ]] && extra+=(--noallreduce)  # bandwidth once per N is enough
    mpirun -np "$n" --oversubscribe --bind-to none "$build/bench/strata_bench_distributed" \
      "${args[@]}" "${extra[@]}" | sed "s/^/rep=$r /" | tee -a "$out"
  done
done
python3 - "$out" <<'PY'
import re, statistics, sys
steps = {}
for line in open(sys.argv[1]):
    if " step " not in line: continue
    kv = dict(re.findall(r"(\w+)=([^ \n]+)", line))
    steps.setdefault(kv["workload"], {}).setdefault(int(kv["processes"]), {})[int(kv["rep"])] = float(kv["step_ms"])
print("\nThe same global batch and the same two cores at both N: the ideal ratio is 1.0.")
print("workload  step ms N=1 (min-max)     step ms N=2 (min-max)     N=2/N=1 median (min-max)")
for name, by_n in steps.items():
    one, two = by_n.get(1, {}), by_n.get(2, {})
    ratios = [two[r] / one[r] for r in one if r in two]
    fmt = lambda v: f"{statistics.median(v):8.2f} ({min(v):.2f}-{max(v):.2f})"
    if ratios:
        print(f"{name:9} {fmt(list(one.values())):25} {fmt(list(two.values())):25} "
              f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
PY
