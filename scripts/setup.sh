#!/usr/bin/env bash
# Installs what is missing (Debian packages; PyTorch 2.x from PyPI into the
# project-local virtual environment .venv/), configures and builds remat into
# build/ (binaries in build/bin/, the Python extension in build/python/).
# Idempotent: re-running it with nothing changed takes seconds.
#
#   scripts/setup.sh            # install + configure + build
#   REMAT_BUILD_DIR=out scripts/setup.sh
#   REMAT_SKIP_VENV=1 scripts/setup.sh   # no .venv (PyTorch 2.x tests skip)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${REMAT_BUILD_DIR:-$root/build}
llvm_prefix=/usr/lib/llvm-22

packages=(
  cmake ninja-build g++ pkg-config python3
  # The Python extension (lib/Bindings/Python) and the virtual environment.
  python3-dev pybind11-dev python3-venv
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld-22 clang-22
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev coinor-libcbc-dev
  # PyTorch 1.13 (AOTAutograd, min-cut partitioner) for python/remat_torch and
  # its tests; Debian's interpreter /usr/bin/python3 sees these.
  python3-torch python3-torchvision python3-networkx
)

source "$root/scripts/ensure-packages.sh"
ensure_packages setup "${packages[@]}"

# PyTorch 2.x (beside Debian's 1.13), JAX and Flax: a virtual environment
# made from Debian's interpreter (the extension is built for it, and both
# share its ABI), with the pinned wheels of python/requirements.txt. Reused while the
# requirements file is unchanged (the copy in .venv/ says what it holds).
#
# The wheels take 6.2 GiB installed. Without room for them (checked first, and
# again if pip runs out of space anyway) setup goes on without .venv and says
# so: the C++ build and its tests need far less, and the tests that need
# PyTorch 2.x or JAX report UNSUPPORTED (lit names the missing interpreter).
# Any other pip failure stops setup.
venv=${REMAT_VENV:-$root/.venv}
requirements=$root/python/requirements.txt
venv_need_kib=$((8 * 1024 * 1024))   # installed size plus pip's unpacking room
skip_venv() {
  echo "setup: WARNING: $1; going on without $venv: the PyTorch 2.x and JAX" \
    "tests will be UNSUPPORTED. Free space (or make .venv a link to a larger" \
    "disk) and re-run, or set REMAT_SKIP_VENV=1 to silence this." >&2
}
if [[ ${REMAT_SKIP_VENV:-0} != 1 ]] &&
    ! cmp -s "$requirements" "$venv/remat-requirements.txt"; then
  # The disk .venv lives on: its own when it exists (it may be a link).
  venv_disk=$(dirname "$venv")
  [[ -d $venv ]] && venv_disk=$venv/
  free_kib=$(df -Pk "$venv_disk" | awk 'NR == 2 { print $4 }')
  if ((free_kib < venv_need_kib)); then
    skip_venv "only $((free_kib / 1024)) MiB free for $venv, which needs about $((venv_need_kib / 1024)) MiB"
  else
    echo "setup: installing python/requirements.txt (PyTorch 2.x, JAX) into $venv (pip, a few minutes once)"
    start=$SECONDS
    [[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv "$venv"
    pip_log=$(mktemp)
    # --no-cache-dir: a second copy of the wheels in pip's cache would need
    # another 2-3 GiB.
    if "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-cache-dir -r "$requirements" 2>&1 | tee "$pip_log"; then
      cp "$requirements" "$venv/remat-requirements.txt"
      echo "setup: $venv ready in $((SECONDS - start)) s"
    elif grep -q "No space left on device" "$pip_log"; then
      rm -rf "$venv"   # a half-installed venv only takes the build's space
      skip_venv "pip ran out of disk space installing into $venv"
    else
      echo "setup: pip failed installing $requirements into $venv (output above)" >&2
      rm -f "$pip_log"
      exit 1
    fi
    rm -f "$pip_log"
  fi
fi

if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit"
fi

cmake --build "$build"
