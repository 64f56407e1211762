#!/usr/bin/env bash
# setup.sh - installs what stallsim needs (Debian packages, when missing) and builds it
# into build/. Usage: scripts/setup.sh [extra cmake arguments]
# JOBS=N sets how many compiler processes run at once (default: one per core).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

packages=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libhdf5-openmpi-dev hdf5-tools
          libgsl-dev libinih-dev libcmocka-dev valgrind python3 python3-h5py python3-matplotlib python3-numpy
          libyajl-dev zlib1g-dev python3-torch python3-pil)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON "$@" >/dev/null
cmake --build build -j"${JOBS:-$(nproc)}"
echo "setup: built $here/build/stallsim"
