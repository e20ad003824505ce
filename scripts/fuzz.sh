#!/usr/bin/env bash
# Runs every libFuzzer target in tests/fuzz (one per reader of outside bytes), seeded from
# the real files in tests/data plus the regression files of earlier findings
# (tests/data/fuzz_regressions/<target>/). Builds them first in the sanitizer build
# directory that scripts/asan.sh uses (AddressSanitizer + UBSan). Fails when any target
# finds a crash, a hang, a leak, a sanitizer report or an exception other than
# strata::Error; the input that did it is left in $BUILD_DIR/fuzz/<target>/artifacts.
# Prints, per target, how many inputs it ran (docs/reliability.md records these).
#
# By default each target runs a fixed number of inputs from a fixed seed, about a minute
# on a 2-core machine, and at most FUZZ_SECONDS: the same run each time (libFuzzer orders
# seeds of equal size as the file system lists them, so another machine's run may differ
# a little), and a faster machine runs no further, so CI fails on regressions rather than
# on whatever a faster machine happens to reach.
# FUZZ_RUNS=0 explores instead: as many inputs as FUZZ_SECONDS allows.
#   bash scripts/fuzz.sh                                   # every target, as CI runs them
#   FUZZ_RUNS=0 FUZZ_SECONDS=600 bash scripts/fuzz.sh fuzz_keras_h5   # explore one
# Environment: BUILD_DIR (default build-asan), JOBS, FUZZ_SECONDS (default 120), FUZZ_RUNS.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-120}

# Inputs per target: about what each runs in 60 s alone on this project's 2-core machine.
runs() {
  case "$1" in
    fuzz_keras_h5)    echo 5500 ;;
    fuzz_keras_zip)   echo 16000 ;;
    fuzz_model_json)  echo 60000 ;;
    fuzz_checkpoint)  echo 30000 ;;
    fuzz_idx)         echo 65000 ;;
    fuzz_npy)         echo 650000 ;;
    fuzz_npz)         echo 600000 ;;
    fuzz_csv)         echo 800000 ;;
    *) echo 10000 ;;
  esac
}

# Seeds per target: files in tests/data (small ones: big inputs slow every mutation down),
# then the target's own regression files (not other targets').
seeds() {
  local others=(-not -path '*/fuzz_regressions/*')
  case "$1" in
    fuzz_keras_h5)    find tests/data -name '*.h5' -size -200k -not -path '*/checkpoint/*' "${others[@]}" ;;
    fuzz_keras_zip)   find tests/data -name '*.keras' -size -200k "${others[@]}" ;;
    fuzz_model_json)  find tests/data/model_configs -name '*.json' ;;
    fuzz_npy)         find tests/data -name '*.npy' -size -16k "${others[@]}" ;;
    fuzz_npz)         find tests/data -name '*.npz' "${others[@]}" ;;
    fuzz_csv)         find tests/data/csv -type f ;;
    fuzz_idx)         find tests/data/idx -type f ;;
    fuzz_checkpoint)  find tests/data/checkpoint -type f ;;
    *) echo "fuzz.sh: no seeds declared for $1" >&2; return 1 ;;
  esac
  if [[ -d tests/data/fuzz_regressions/$1 ]]; then find "tests/data/fuzz_regressions/$1" -type f; fi
}

source scripts/sanitizer_build.sh
configure_sanitizer_build "$BUILD_DIR"
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for source in tests/fuzz/fuzz_*.cc; do targets+=("$(basename "$source" .cc)"); done
fi
cmake --build "$BUILD_DIR" -j"$JOBS" --target "${targets[@]}"
sanitizer_environment
# libhdf5 sizes a cache entry from a damaged header and allocates it before reading (one
# 12 GB malloc from a 17 KB file), then fails cleanly when the read does. Such memory is
# never touched outside a sanitizer, but AddressSanitizer writes an eighth of it in shadow
# when it is freed, so 24 GB would read as 3 GB used. Here, as on a machine that cannot
# overcommit that much, an allocation past 2 GB fails (returns null) instead: no input
# of at most 256 KB needs more (Strata bounds weights by the file's size).
export ASAN_OPTIONS="$ASAN_OPTIONS max_allocation_size_mb=2048"

# One target per core at a time (libFuzzer runs on one thread): on two cores the eight
# targets take half the time they took one after another. Each writes its own log.
fuzz_target() {
  local target=$1 work="$BUILD_DIR/fuzz/$1"
  local target_runs=${FUZZ_RUNS:-$(runs "$target")}
  local status=0
  # -seed: the same mutations each run; -timeout: an input taking 20 s is a hang;
  # -rss_limit_mb: memory actually used past 3 GiB is a finding, while a huge allocation
  # that fails (above) is not (-malloc_limit_mb 1 TiB: no limit of libFuzzer's own).
  "$BUILD_DIR/tests/fuzz/$target" "$work/corpus" -seed=1 -runs="${target_runs/#0/-1}" -max_total_time="$FUZZ_SECONDS" \
    -timeout=20 -rss_limit_mb=3072 -malloc_limit_mb=1048576 -max_len=262144 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" >"$work/log" 2>&1 || status=$?
  echo "$status" >"$work/status"
}

for target in "${targets[@]}"; do
  work="$BUILD_DIR/fuzz/$target"
  rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts"
  seeds "$target" | while read -r seed; do cp "$seed" "$work/corpus/"; done
  count=$(find "$work/corpus" -type f | wc -l)
  target_runs=${FUZZ_RUNS:-$(runs "$target")}
  echo "fuzz.sh: $target: $([[ $target_runs -gt 0 ]] && echo "$target_runs inputs, ")at most ${FUZZ_SECONDS}s, from $count seeds"
done
running=0
for target in "${targets[@]}"; do
  if [[ $running -ge $JOBS ]]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_target "$target" &
  running=$((running + 1))
done
wait

failed=()
summary=()
for target in "${targets[@]}"; do
  work="$BUILD_DIR/fuzz/$target"
  status=$(cat "$work/status" 2>/dev/null || echo "?")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
  if [[ $status != 0 ]]; then
    failed+=("$target")
    echo "fuzz.sh: $target FAILED (exit $status); the end of its log:"
    tail -n 60 "$work/log"
    ls -l "$work/artifacts"
  fi
  summary+=("$(printf '%-18s %10s inputs  %s' "$target" "${runs:-?}" "$([[ $status == 0 ]] && echo ok || echo FAILED)")")
done

printf '%s\n' "fuzz.sh: inputs run per target:" "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: findings in: ${failed[*]}" >&2
  exit 1
fi
