#!/usr/bin/env bash
# Load test for strata-serve (docs/serving.md, "Under load"): serves a model from
# tests/data/keras_golden on 127.0.0.1, and runs wrk against its REST predict endpoint and
# strata_grpc_load (bench/grpc_load.cc) against its gRPC Predict, each without and with
# --enable_batching, sampling the server's resident memory (VmRSS) during each run.
#
#   bench/serve_load.sh                       # functional_mlp, 30 s, 64 connections / streams
#   MODEL=cnn_bn_merge DURATION=10s bench/serve_load.sh
#   MODES="grpc grpc_batching" bench/serve_load.sh
#
# Environment: MODEL (functional_mlp), DURATION (30s), CONNECTIONS (64: wrk's connections,
# and the gRPC calls in flight on one channel), WRK_THREADS (2), INSTANCES (examples per
# request, 1), HTTP_THREADS (--rest_api_num_threads, 128), BATCHING_FLAGS
# (--max_batch_size=32 --batch_timeout_micros=1000), PORT (18501, REST), GRPC_PORT (18500),
# MODES ("no_batching batching grpc grpc_batching"), BUILD (build), SERVER (the strata-serve to run,
# $BUILD/tools/strata-serve: set it to compare two builds). Needs wrk and curl
# (Debian: wrk, curl). Only ever targets 127.0.0.1.
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
grpc_port="${GRPC_PORT:-18500}"
exe="${SERVER:-$build/tools/strata-serve}"
grpc_load="$build/bench/strata_grpc_load"

command -v wrk >/dev/null || { echo "serve_load: wrk is missing (apt-get install wrk)" >&2; exit 1; }
if [[ ! -x "$exe" ]]; then
  [[ -f "$build/CMakeCache.txt" ]] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build" -j"$(nproc)" --target strata_serve
fi
if [[ "${MODES:-grpc}" == *grpc* && ! -x "$grpc_load" ]]; then
  cmake --build "$build" -j"$(nproc)" --target strata_grpc_load
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
# $1 rest or grpc; the rest strata-serve's flags.
start_server() {
  local api=$1
  shift
  # gRPC only for the gRPC runs: a strata-serve built without gRPC takes only --port=-1.
  local grpc_flags=(--port=-1)
  [[ "$api" == grpc ]] && grpc_flags=(--port="$grpc_port" --grpc_bind=127.0.0.1)
  "$exe" "${grpc_flags[@]}" --rest_api_port="$port" --rest_api_bind=127.0.0.1 --model_name=m \
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

# VmRSS at 0, 1/6, ..., 5/6 of a run of $1 seconds, into $work/rss.txt (in the background).
sample_rss() {
  local secs=$1
  for i in 0 1 2 3 4 5; do
    echo "$(( i * secs / 6 ))s:$(rss_kb)"
    sleep "$(awk -v s="$secs" 'BEGIN { print s / 6 }')"
  done >"$work/rss.txt"
}

# One run: $1 the label, $2 rest or grpc, the rest strata-serve's flags.
run() {
  local label="$1" api="$2"
  shift 2
  start_server "$api" "$@"
  local secs=${duration%s}
  local grpc_run=("$grpc_load" --target="127.0.0.1:$grpc_port" --model=m --streams="$connections"
                  --instances="$instances" --warmup=0)
  if [[ "$api" == rest ]]; then  # warm-up
    make_body
    BODY_FILE="$work/body.json" wrk -t2 -c"$connections" -d3s -s "$root/bench/serve_load.lua" \
      "http://127.0.0.1:$port/v1/models/m:predict" >/dev/null
  else
    "${grpc_run[@]}" --seconds=3 >/dev/null
  fi
  sample_rss "$secs" &
  local sampler=$!
  if [[ "$api" == rest ]]; then
    BODY_FILE="$work/body.json" wrk -t"$wrk_threads" -c"$connections" -d"$duration" --latency \
      -s "$root/bench/serve_load.lua" "http://127.0.0.1:$port/v1/models/m:predict" | tee "$work/out.txt"
  else
    "${grpc_run[@]}" --seconds="$secs" | tee "$work/out.txt" || true
  fi
  wait "$sampler" || true
  echo "end:$(rss_kb)" >>"$work/rss.txt"
  echo "RSS (KiB) over the run: $(tr '\n' ' ' <"$work/rss.txt")"
  local summary
  summary=$(grep '^SUMMARY' "$work/out.txt")
  echo "RESULT $label $summary rss_kb=$(tr '\n' ',' <"$work/rss.txt")"
  stop_server
}

echo "serve_load: model $model, $instances example(s) per request, wrk -t$wrk_threads -c$connections -d$duration,"
echo "  strata-serve --rest_api_num_threads=$http_threads; $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "  strata_grpc_load: $connections calls in flight on one channel"
for mode in ${MODES:-no_batching batching grpc grpc_batching}; do
  case "$mode" in
    no_batching) echo "== REST without batching"; run no_batching rest ;;
    # shellcheck disable=SC2086
    batching) echo "== REST with --enable_batching $batching_flags"; run batching rest --enable_batching $batching_flags ;;
    grpc) echo "== gRPC without batching"; run grpc grpc ;;
    # shellcheck disable=SC2086
    grpc_batching) echo "== gRPC with --enable_batching $batching_flags"; run grpc_batching grpc --enable_batching $batching_flags ;;
    *) echo "serve_load: unknown mode '$mode'" >&2; exit 2 ;;
  esac
done
