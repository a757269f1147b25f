#!/usr/bin/env bash
# Installs a built libarrvm into a temporary prefix and uses it the way a
# new user would: a CMake project with find_package(arrvm), a C program
# built with pkg-config, and the installed `arrvm` program; then checks that
# libarrvm.so exports only the public API (check_symbols.py).
#
# usage: check_install.sh BUILD_DIR WORK_DIR SOURCE_DIR
set -euo pipefail
build=$1 work=$2 src=$3
here=$src/tests/install
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

echo "== cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir=$(dirname "$(find "$prefix" -name libarrvm.so -print -quit)")
[ -n "$libdir" ] || { echo "libarrvm.so was not installed"; cat "$work/install.log"; exit 1; }
for f in include/arrvm/arrvm.h include/arrvm/arrvm.hpp include/arrvm/types.hpp include/arrvm/export.h \
         include/arrvm/version.h bin/arrvm share/arrvm/programs.py; do
  [ -e "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
soname=$(objdump -p "$libdir/libarrvm.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "libarrvm.so.0" ] || { echo "SONAME is '$soname', expected libarrvm.so.0"; exit 1; }
[ -e "$libdir/$soname" ] || { echo "$libdir/$soname missing"; exit 1; }
echo "installed: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"

echo "== consumer 1: find_package(arrvm)"
cmake -S "$here/cmake_consumer" -B "$work/cmake_consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/cmake_consumer.log"
cmake --build "$work/cmake_consumer" >>"$work/cmake_consumer.log" || { cat "$work/cmake_consumer.log"; exit 1; }
# No LD_LIBRARY_PATH: the imported target gives the build an rpath.
env -u LD_LIBRARY_PATH "$work/cmake_consumer/consumer"

echo "== consumer 2: pkg-config arrvm"
export PKG_CONFIG_PATH=$libdir/pkgconfig
echo "pkg-config: version $(pkg-config --modversion arrvm), $(pkg-config --cflags --libs arrvm)"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$here/pkgconfig_consumer/main.c" -o "$work/pkgconfig_consumer" $(pkg-config --cflags --libs arrvm)
LD_LIBRARY_PATH=$libdir "$work/pkgconfig_consumer"

echo "== the installed arrvm program"
"$prefix/bin/arrvm" info | head -1
[ "$("$prefix/bin/arrvm" --version)" = "arrvm $("$prefix/bin/arrvm" info | head -1 | cut -d' ' -f2)" ] || {
  echo "arrvm --version does not print the version"; exit 1; }

echo "== exported symbols"
/usr/bin/python3 "$here/check_symbols.py" "$libdir/libarrvm.so" "$prefix/include"
