#!/usr/bin/env bash
# Builds the CPython that anndata 0.13 needs (Python >= 3.12; Debian bookworm
# has 3.11) from Debian trixie's python3.13 source package, fetched with
# apt like the HDF5 the product builds (cmake/hdf5/fetch-debian-source:
# signatures and hashes checked by apt, nothing in /etc/apt changed), into
# bench/out/python3.13. Only the benchmark uses it. About 5 minutes on 2
# cores; a second run does nothing.
#   bench/runtimes/build-python.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
out="$here/../out"
version=3.13.5
debian_version=3.13.5-2+deb13u5
prefix="$out/python3.13"
[ -x "$prefix/bin/python3.13" ] && exit 0
# What CPython's ssl, ctypes, bz2, lzma, sqlite3, readline and uuid modules
# build against (pip needs ssl).
$(command -v sudo) apt-get install -y -q libssl-dev libffi-dev zlib1g-dev libbz2-dev liblzma-dev libsqlite3-dev \
  libreadline-dev libncurses-dev uuid-dev libexpat1-dev libgdbm-dev >/dev/null
work="$out/python3.13-build"
rm -rf "$work"
mkdir -p "$work"
"$root/cmake/hdf5/fetch-debian-source" python3.13 "$debian_version" trixie "$work" >/dev/null
tar -xf "$work/python3.13_$version.orig.tar.xz" -C "$work"
cd "$work/Python-$version"
./configure --prefix="$prefix" --without-ensurepip >/dev/null
make -j"$(nproc)" >/dev/null
make install >/dev/null
rm -rf "$work"
"$prefix/bin/python3.13" -c 'import ssl, ctypes, bz2, lzma, sqlite3; print("python", __import__("sys").version.split()[0])'
