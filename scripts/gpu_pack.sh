#!/usr/bin/env bash
# Packs the test programs of a CUDA build made here (no GPU needed to build them) for a
# GPU machine that runs them without building anything: scripts/gpu_run_packed.sh there.
# Building on the lent GPU machine (scripts/gpu_check.sh) spends most of its few minutes
# compiling; this spends them testing.
#   bash scripts/gpu_pack.sh [BUILD_DIR]        # default build; it must be STRATA_CUDA=ON
# Writes .gpu-run/strata-tests.tar.xz (ignored by git): libstrata and the test programs,
# stripped, and the shared libraries they need that are not CUDA's or the C/C++ runtime's
# (HDF5, KISS FFT, Open MPI's and their own needs): the GPU machine brings CUDA, cuBLAS,
# cuFFT, cuDNN and NCCL, and a C library at least as new as Debian 12's. Then, from the
# device tool:
#   run(command="bash scripts/gpu_run_packed.sh $OUT", carry=[".gpu-run"])
# The tarball is ~9 MB, which with the tracked files keeps under the tool's 64 MiB.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${1:-build}
grep -q '^STRATA_CUDA:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" ||
  { echo "gpu_pack: $BUILD_DIR is not a CUDA build (STRATA_CUDA=ON)" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" .gpu-run
soname=$(readelf -d "$BUILD_DIR/libstrata.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
cp -L "$BUILD_DIR/libstrata.so" "$stage/bin/$soname"
# Every suite but serving's (gRPC and its dependencies would double the size; nothing of it runs on a GPU).
for t in "$BUILD_DIR"/tests/*_tests; do [[ $t == */serving_tests ]] || cp "$t" "$stage/bin/"; done
# The programs those tests start, where built: the data-parallel tests' MPI job and the
# tools the io suite runs.
for program in tests/mpi_job tools/strata-predict tools/strata-inspect; do
  if [[ -x "$BUILD_DIR/$program" ]]; then
    cp "$BUILD_DIR/$program" "$stage/bin/"
  else
    # Said here, not found out on the GPU machine's few minutes: the tests that start it fail there.
    echo "gpu_pack: warning: $BUILD_DIR/$program is not built; the tests that start it will fail on the GPU" >&2
  fi
done
[[ -x "$stage/bin/io_tests" ]] || { echo "gpu_pack: $BUILD_DIR/tests/io_tests is not built" >&2; exit 1; }
strip "$stage/bin/"*
# Debian's HDF5 links libcurl and libcrypto for its S3 driver (ROS3), which Strata never opens;
# with their own needs (GnuTLS, Kerberos, LDAP, ...) they were a third of the pack, which with
# the tracked files went past the device tool's 64 MiB. The pack carries stand-ins instead: a
# library of each soname defining, under the versions HDF5 asks for, the functions it imports
# from it, each returning 0 (curl_easy_init a null handle, so ROS3 fails at its first step).
hdf5=$(ldd "$stage/bin/io_tests" | awk '/libhdf5/ && !found {print $3; found = 1}')
for stand_in in libcurl.so.4 libcrypto.so.3; do
  [[ -n "$hdf5" ]] || break
  # HDF5's imports as "VERSION name"; each library's version names are its own.
  imports=$(objdump -T "$hdf5" | awk '$3 == "*UND*" && $0 ~ /\(/ {print $(NF-1), $NF}' | tr -d '()' | sort -u)
  wanted=$(objdump -p "$hdf5" | awk -v n="$stand_in" '/required from/ {on = ($3 == n":")} on && /0x/ {print $NF}')
  [[ -n "$wanted" ]] || continue
  {
    for version in $wanted; do
      echo "$imports" | awk -v v="$version" '$1 == v {printf "long %s(void) { return 0; }\n", $2}'
    done
  } >"$stage/stand_in.c"
  [[ -s "$stage/stand_in.c" ]] || { echo "gpu_pack: found no function HDF5 takes from $stand_in" >&2; exit 1; }
  for version in $wanted; do echo "$version { global: *; };"; done >"$stage/stand_in.map"
  gcc -shared -fPIC -O1 -o "$stage/lib/$stand_in" -Wl,-soname,"$stand_in" \
    -Wl,--version-script="$stage/stand_in.map" "$stage/stand_in.c"
  rm -f "$stage/stand_in.c" "$stage/stand_in.map"
done
# The libraries the programs load, less the C/C++ runtime and NVIDIA's (the GPU machine's),
# found as the GPU machine will find them: the pack's own first.
for f in "$stage/bin/"*; do LD_LIBRARY_PATH="$stage/bin:$stage/lib" ldd "$f"; done |
  awk -v stage="$stage" '/=> \// && index($3, stage) != 1 {print $1, $3}' | sort -u |
  grep -vE '^(libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libnsl|libanl|libnss_[a-z]+|libBrokenLocale|libstdc\+\+|libgcc_s)\.|^(libcud|libcublas|libcufft|libnccl|libstrata)' |
  awk '{print $2}' | xargs -r cp -L -t "$stage/lib/"
git describe --always --dirty --abbrev=12 >"$stage/commit"
tar -C "$stage" -cJf .gpu-run/strata-tests.tar.xz bin lib commit
echo "gpu_pack: .gpu-run/strata-tests.tar.xz ($(du -h .gpu-run/strata-tests.tar.xz | cut -f1)," \
  "$(ls "$stage/bin" | wc -l) programs, $(ls "$stage/lib" | wc -l) libraries, commit $(cat "$stage/commit"))"
