#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds remat into
# build/ (binaries in build/bin/). Idempotent: re-running it with nothing
# changed takes seconds.
#
#   scripts/setup.sh            # install + configure + build
#   REMAT_BUILD_DIR=out scripts/setup.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${REMAT_BUILD_DIR:-$root/build}
llvm_prefix=/usr/lib/llvm-22

packages=(
  cmake ninja-build g++ pkg-config python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld-22 clang-22
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev coinor-libcbc-dev
  # PyTorch 1.13 (AOTAutograd, min-cut partitioner) for python/remat_torch and
  # its tests; Debian's interpreter /usr/bin/python3 sees these.
  python3-torch python3-torchvision python3-networkx
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo=sudo; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit"
fi

cmake --build "$build"
