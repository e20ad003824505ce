#!/usr/bin/env bash
# Downloads, here (Debian 12 with apt), the Debian packages that scripts/gpu_check.sh
# needs to build Strata on the GPU machine, which has the CUDA toolkit, CMake and a
# compiler but none of Debian's -dev packages and no network:
#   bash scripts/fetch_gpu_packages.sh [DIR]   # DIR defaults to .gpu-debs (git-ignored)
# Then give DIR to the device tool's `carry`. Nothing is installed; DIR is emptied first.
# Needs apt's package lists (apt-get update) and, to list HDF5's runtime libraries,
# libhdf5-dev installed here (scripts/install_deps.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
DIR=${1:-.gpu-debs}

# What the build compiles and links against, tests on (tools, examples, benchmarks and
# serving off): Eigen, nlohmann/json, GoogleTest, zlib, HDF5's C library, KISS FFT, and Open MPI
# (mpirun and the library, for the data-parallel tests on the GPU; gpu_check.sh runs it
# relocated into its prefix). zlib1g comes too because zlib1g-dev's libz.so links to its file.
PACKAGES=(libeigen3-dev nlohmann-json3-dev libgtest-dev zlib1g-dev zlib1g libhdf5-dev libhdf5-103-1
          libkissfft-dev libkissfft-float131
          libopenmpi-dev libopenmpi3 openmpi-bin openmpi-common)

# The runtime dependencies of HDF5 and Open MPI: the package of every library that
# libhdf5, Open MPI's programs, libraries and components, and PMIx's load here, except
# glibc's and the compiler's (the GPU machine must use its own). gpu_check.sh keeps only
# those the GPU machine lacks.
hdf5=$(dpkg -L libhdf5-103-1 2>/dev/null | grep -m1 '/libhdf5_serial\.so\.[0-9]*$' || true)
mpirun=$(dpkg -L openmpi-bin 2>/dev/null | grep -m1 '/orterun$' || true)
if [[ -z "$hdf5" || -z "$mpirun" ]]; then
  echo "fetch_gpu_packages: libhdf5-103-1 or openmpi-bin is not installed here, so the runtime" >&2
  echo "fetch_gpu_packages: libraries cannot be listed; run scripts/install_deps.sh --test first" >&2
  exit 1
fi
mapfile -t loaded < <(printf '%s\n' "$hdf5" "$mpirun" \
  $(dpkg -L libopenmpi3 libpmix2 2>/dev/null | grep -E '\.so(\.[0-9]+)*$'))
owner_of() {  # the package owning library file $1 (paths differ with merged /usr)
  local f=$1
  for p in "$f" "${f#/usr}" "/usr$f" "$(readlink -f "$f")" "$(readlink -f "$f" | sed 's|^/usr||')"; do
    dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1 && return 0
  done
  echo "fetch_gpu_packages: no package owns $f" >&2
  return 1
}
while read -r lib; do
  pkg=$(owner_of "$lib")
  case "$pkg" in
    libc6|libgcc-s1|libstdc++6) ;;
    *) PACKAGES+=("$pkg") ;;
  esac
done < <(ldd "${loaded[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u)
mapfile -t PACKAGES < <(printf '%s\n' "${PACKAGES[@]}" | sort -u)

rm -rf "$DIR"
mkdir -p "$DIR"
echo "fetch_gpu_packages: downloading ${#PACKAGES[@]} packages into $DIR: ${PACKAGES[*]}"
# As root, apt warns that its sandbox user cannot write DIR; the download works anyway.
if ! (cd "$DIR" && apt-get download -q "${PACKAGES[@]}"); then
  echo "fetch_gpu_packages: apt-get download failed (no package lists? run apt-get update)" >&2
  exit 1
fi
echo "fetch_gpu_packages: $(ls "$DIR"/*.deb | wc -l) files, $(du -sh "$DIR" | cut -f1) in $DIR"
