#!/usr/bin/env bash
# Load test for strata-serve (docs/serving.md, "Under load"): serves a model from
# tests/data/keras_golden on 127.0.0.1, and runs wrk against its predict endpoint without
# and with --enable_batching, sampling the server's resident memory (VmRSS) during each run.
#
#   bench/serve_load.sh                       # functional_mlp, 30 s, 64 connections
#   MODEL=cnn_bn_merge DURATION=10s bench/serve_load.sh
#
# Environment: MODEL (functional_mlp), DURATION (30s), CONNECTIONS (64), WRK_THREADS (2),
# INSTANCES (examples per request, 1), HTTP_THREADS (--rest_api_num_threads, 128),
# BATCHING_FLAGS (--max_batch_size=32 --batch_timeout_micros=1000), PORT (18501),
# MODES ("no_batching batching"),
# BUILD (build). Needs wrk and curl (Debian: wrk, curl). Only ever targets 127.0.0.1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD:-$root/build}"
model="${MODEL:-functional_mlp}"
duration="${DURATION:-30s}"
connections="${CONNECTIONS:-64}"
wrk_threads="${WRK_THREADS:-2}"
instances="${INSTANCES:-1}"
http_threads="${HTTP_THREADS:-128}"
batching_flags="${BATCHING_FLAGS:---max_batch_size=32 --batch_timeout_micros=1000}"
port="${PORT:-18501}"
exe="$build/tools/strata-serve"

command -v wrk >/dev/null || { echo "serve_load: wrk is missing (apt-get install wrk)" >&2; exit 1; }
if [[ ! -x "$exe" ]]; then
  [[ -f "$build/CMakeCache.txt" ]] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build" -j"$(nproc)" --target strata_serve
fi

work="$(mktemp -d /tmp/strata_serve_load.XXXXXX)"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/models/1"
cp "$root/tests/data/keras_golden/$model.keras" "$work/models/1/model.keras"

# The request: INSTANCES examples of zeros+0.5 shaped as the model's input (read from the
# metadata the server gives).
start_server() {
  "$exe" --port=-1 --rest_api_port="$port" --rest_api_bind=127.0.0.1 --model_name=m \
    --model_base_path="$work/models" --rest_api_num_threads="$http_threads" "$@" >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/v1/models/m" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "serve_load: the server did not start:" >&2
  cat "$work/server.log" >&2
  exit 1
}
stop_server() {
  kill "$server_pid"
  wait "$server_pid" || true
  server_pid=""
}
make_body() {
  local dims
  dims=$(curl -sf "http://127.0.0.1:$port/v1/models/m/metadata" |
         grep -o '"dim":\[[^]]*\]' | head -1 | grep -o '"size":"-\?[0-9]*"' | grep -o -- '-\?[0-9]*' | tail -n +2)
  awk -v dims="$(echo $dims)" -v n="$instances" 'function value(d,   i, s) {
      if (d > nd) return "0.5"
      s = "["
      for (i = 1; i <= dim[d]; i++) s = s (i > 1 ? "," : "") value(d + 1)
      return s "]"
    }
    BEGIN {
      nd = split(dims, dim, " ")
      one = value(1)
      body = "{\"instances\":["
      for (k = 1; k <= n; k++) body = body (k > 1 ? "," : "") one
      print body "]}"
    }' >"$work/body.json"
}
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$server_pid/status"; }

run() {
  local label="$1"
  shift
  start_server "$@"
  make_body
  BODY_FILE="$work/body.json" wrk -t2 -c"$connections" -d3s -s "$root/bench/serve_load.lua" \
    "http://127.0.0.1:$port/v1/models/m:predict" >/dev/null  # warm-up
  local secs=${duration%s}
  (  # VmRSS at 0, 1/6, ..., 5/6 of the run
    for i in 0 1 2 3 4 5; do
      echo "$(( i * secs / 6 ))s:$(rss_kb)"
      sleep "$(awk -v s="$secs" 'BEGIN { print s / 6 }')"
    done
  ) >"$work/rss.txt" &
  local sampler=$!
  BODY_FILE="$work/body.json" wrk -t"$wrk_threads" -c"$connections" -d"$duration" --latency \
    -s "$root/bench/serve_load.lua" "http://127.0.0.1:$port/v1/models/m:predict" | tee "$work/wrk.txt"
  wait "$sampler" || true
  echo "end:$(rss_kb)" >>"$work/rss.txt"
  echo "RSS (KiB) over the run: $(tr '\n' ' ' <"$work/rss.txt")"
  local summary
  summary=$(grep '^SUMMARY' "$work/wrk.txt")
  echo "RESULT $label $summary rss_kb=$(tr '\n' ',' <"$work/rss.txt")"
  stop_server
}

echo "serve_load: model $model, $instances example(s) per request, wrk -t$wrk_threads -c$connections -d$duration,"
echo "  strata-serve --rest_api_num_threads=$http_threads; $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for mode in ${MODES:-no_batching batching}; do
  if [[ "$mode" == no_batching ]]; then
    echo "== without batching"
    run no_batching
  else
    echo "== with --enable_batching $batching_flags"
    # shellcheck disable=SC2086
    run batching --enable_batching $batching_flags
  fi
done
