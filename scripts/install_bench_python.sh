#!/usr/bin/env bash
# Installs the Python engines the benchmarks compare Strata with -- Keras 3 on
# TensorFlow's CPU build, ONNX Runtime and tf2onnx, at the versions bench/results was
# measured with -- into a virtual environment of their own (Debian's Python refuses
# pip installs into the system), build/bench/python unless STRATA_BENCH_PYTHON_ENV says
# otherwise. Safe to run again: when the environment already has these versions it
# returns at once. bench/run uses that environment's python3 when it exists.
#   bash scripts/install_bench_python.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
env_dir="${STRATA_BENCH_PYTHON_ENV:-$root/build/bench/python}"
PINNED=(keras==3.15.1 tensorflow-cpu==2.21.0 onnxruntime==1.32.0 tf2onnx==1.17.0)

has_pinned() {
  [[ -x "$env_dir/bin/python3" ]] || return 1
  local frozen
  # pip writes a distribution's name as its metadata has it (tensorflow_cpu): compare in
  # the normalized form, lower case with hyphens.
  frozen="$("$env_dir/bin/python3" -m pip freeze 2>/dev/null | tr 'A-Z_' 'a-z-' || true)"
  for requirement in "${PINNED[@]}"; do
    [[ $'\n'"$frozen"$'\n' == *$'\n'"$requirement"$'\n'* ]] || return 1
  done
}
if has_pinned; then
  echo "install_bench_python: $env_dir has ${PINNED[*]}"
  exit 0
fi

# python3 -m venv needs Debian's python3-venv (ensurepip); install_deps installs the rest.
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]]; then as_root=(); elif command -v sudo >/dev/null 2>&1; then as_root=(sudo); else
    echo "install_bench_python: python3-venv is missing; run this script as root to install it" >&2
    exit 1
  fi
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Lock::Timeout=600 update
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends python3-venv python3-pip
fi
mkdir -p "$(dirname "$env_dir")"
[[ -x "$env_dir/bin/python3" ]] || python3 -m venv "$env_dir"
"$env_dir/bin/python3" -m pip install -q --upgrade pip
"$env_dir/bin/python3" -m pip install -q "${PINNED[@]}"
echo "install_bench_python: installed ${PINNED[*]} into $env_dir"
