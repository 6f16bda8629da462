#!/usr/bin/env bash
# Installs the Debian packages tempo builds with, when any is missing.
set -euo pipefail
pkgs=(g++ cmake ninja-build pkg-config libtbb-dev catch2 libbenchmark-dev libssl-dev python3 python3-venv python3-pip
      clang-14 libclang-rt-14-dev doxygen libopenmpi-dev openmpi-bin strace)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
