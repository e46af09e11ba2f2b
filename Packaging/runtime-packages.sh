#!/bin/sh
# Prints the Debian packages whose shared libraries BINARY links (its ELF
# NEEDED entries, each resolved by the dynamic loader and looked up with
# dpkg-query -S), one per line, sorted, without the base packages below.
#
#   Packaging/runtime-packages.sh .build/release/marquee     the list
#   Packaging/runtime-packages.sh --base                      the base packages
#
# Only the direct NEEDED entries count: apt installs each package's own
# dependencies (libavcodec59 brings libx264-164, …). Fails if BINARY links
# the Swift runtime or Foundation dynamically (a build without
# --static-swift-stdlib) or a library that no Debian package holds.
set -eu

# In every debootstrap --variant=minbase bookworm system and in
# debian:bookworm-slim (apt itself depends on them); make dist-test checks
# that a fresh minbase system has each of them.
BASE_PACKAGES="libc6 libgcc-s1 libstdc++6"

if [ "${1:-}" = "--base" ]; then
  printf '%s\n' $BASE_PACKAGES
  exit 0
fi
binary=${1:?usage: runtime-packages.sh BINARY | --base}
fail() { echo "runtime-packages: $*" >&2; exit 1; }
[ -f "$binary" ] || fail "no such file: $binary"

needed=$(LC_ALL=C readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
[ -n "$needed" ] || fail "$binary has no NEEDED entries (not a dynamically linked ELF file?)"
resolved=$(LC_ALL=C ldd "$binary")

# The package that holds PATH (dpkg records /lib/… or /usr/lib/… as the
# package shipped it; with merged /usr the loader may name either).
package_of() {
  for candidate in "$1" "${1#/usr}" "/usr$1"; do
    if owner=$(dpkg-query -S "$candidate" 2>/dev/null); then
      case $owner in *", "*) fail "$candidate is in more than one package: $owner" ;; esac
      echo "${owner%%:*}"
      return 0
    fi
  done
  return 1
}

packages=""
for soname in $needed; do
  case $soname in
    libswift*|libFoundation*|lib_Foundation*|libdispatch*|libBlocksRuntime*)
      fail "$binary links $soname dynamically: build with --static-swift-stdlib" ;;
  esac
  # `libx.so.1 => /usr/lib/…/libx.so.1 (0x…)`, or the loader itself as
  # `/lib64/ld-linux-x86-64.so.2 (0x…)`.
  path=$(printf '%s\n' "$resolved" | awk -v so="$soname" '
    $1 == so && $2 == "=>" { print $3; exit }
    $1 ~ ("/" so "$") { print $1; exit }')
  case $path in
    /*) ;;
    *) fail "$soname: not found by the dynamic loader" ;;
  esac
  package=$(package_of "$path") || fail "$soname ($path) is in no Debian package"
  packages="$packages $package"
done

printf '%s\n' $packages | LC_ALL=C sort -u | while read -r package; do
  case " $BASE_PACKAGES " in *" $package "*) continue ;; esac
  echo "$package"
done
