# Shared by scripts/asan.sh and scripts/fuzz.sh (sourced): one clang build directory with
# AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage hooks, and the
# sanitizer settings its programs run with.

configure_sanitizer_build() {
  local build_dir=$1
  bash scripts/install_deps.sh --test
  # A clone anywhere reuses the compiler cache: paths under the source root are hashed
  # relative to it, and the (debug-info) build directory is not hashed.
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  # No CUDA (nvcc's host compiler would be clang too), examples or benchmarks: the
  # library, the tools (the suite runs them), the suites and the fuzz targets. strata-serve
  # has its gRPC API here too: the serving suite (gRPC fuzz and limits tests included)
  # passed under AddressSanitizer, UBSan and LeakSanitizer with Debian's gRPC runtime.
  CC=clang CXX=clang++ cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
    -DSTRATA_SANITIZE=address,undefined -DSTRATA_FUZZ=ON -DSTRATA_BUILD_TESTS=ON \
    -DSTRATA_BUILD_EXAMPLES=OFF -DSTRATA_BUILD_TOOLS=ON -DSTRATA_BUILD_BENCH=OFF -DSTRATA_CUDA=OFF \
    -DSTRATA_SERVING_GRPC=ON
}

sanitizer_environment() {
  # Every report is fatal: UBSan's checks would otherwise print and carry on. An
  # allocation too large to ever succeed returns null, as malloc does outside the
  # sanitizer (libhdf5 asks for sizes read from damaged headers and handles the null);
  # sizes that do get used are caught by the fuzzer's RSS limit (scripts/fuzz.sh).
  export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1 strict_string_checks=1 allocator_may_return_null=1 ${ASAN_OPTIONS:-}"
  export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 ${UBSAN_OPTIONS:-}"
  # Leaks inside libhdf5's own error paths are its to fix (the file says which).
  export LSAN_OPTIONS="suppressions=$PWD/tests/lsan_suppressions.txt print_suppressions=0 ${LSAN_OPTIONS:-}"
}
