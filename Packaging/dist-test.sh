#!/usr/bin/env bash
# make dist-test: proves that TARBALL (make dist) runs on Debian 12 without the
# Swift toolchain, with only RUNTIME-PACKAGES added to a minimal system.
#
# 1. A root file system from `debootstrap --variant=minbase bookworm` (the
#    package set debian:bookworm-slim is made from), with bookworm-updates
#    and bookworm-security as in that image, set up by the Dockerfile's own
#    runtime step, Packaging/install-runtime.sh: RUNTIME-PACKAGES and
#    nothing else (`apt-get install --no-install-recommends`), the user
#    marquee. It is cached under MARQUEE_DIST_CACHE (default
#    ~/.cache/marquee/dist-test), keyed by the digests of the package list
#    and of that script; delete the folder to take newer Debian updates.
# 2. The tarball is unpacked into /opt/marquee of that system, as the
#    Dockerfile does, and in a chroot, as the user marquee, `marquee
#    demo-sources`, `build`, `verify` and `validate` must succeed on
#    Pipelines/demo.json.
# 3. Checks: no Swift runtime library anywhere in the system; every library
#    ldd lists resolves inside it, from a Debian package directory, and none
#    is "not found"; each library the binary names comes from
#    RUNTIME-PACKAGES or from a base package the minbase system already had;
#    the packages installed by hand are exactly RUNTIME-PACKAGES.
#
# Commands inside the chroot run in new mount and PID namespaces (unshare)
# with their own /proc, which the Swift runtime needs (it reads the command
# line from /proc/self/cmdline): the mount ends with the namespace, and
# nothing stays mounted on the host. Needs root and debootstrap.
set -euo pipefail

tarball=${1:?usage: dist-test.sh TARBALL}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
packages_file=$repo/RUNTIME-PACKAGES
suite=bookworm
# Bump when the way the root file system is made changes.
recipe=2
install_script=$here/install-runtime.sh

started=$SECONDS
say() { echo "dist-test: [$((SECONDS - started)) s] $*"; }
fail() { echo "dist-test: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || fail "needs debootstrap (make dist-test installs it)"
[ -f "$tarball" ] || fail "no $tarball (make dist)"

cache=${MARQUEE_DIST_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/marquee/dist-test}
key=$( { echo "recipe $recipe $suite minbase"; cat "$packages_file" "$install_script"; } | sha256sum | cut -c1-16)
root=$cache/root-$key
mkdir -p "$cache"
# One run at a time per cache (other worktrees on this machine share it).
exec 9>"$cache/lock"
flock 9

# ---------------------------------------------------------------- root file system
if [ ! -d "$root" ]; then
  rm -rf "$cache"/tmp-*
  tmp=$cache/tmp-$key
  say "no cached root file system for this package list: debootstrap --variant=minbase $suite (cold)"
  # ${DEBIAN_MIRROR} when set, else debootstrap's default mirror.
  debootstrap --variant=minbase "$suite" "$tmp" ${DEBIAN_MIRROR:-} > "$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log" >&2; fail "debootstrap failed (log: $cache/debootstrap.log)"; }
  # What minbase has before anything is added, for the checks below.
  chroot "$tmp" dpkg-query -W -f '${Package}\n' | LC_ALL=C sort > "$tmp/.minbase-packages"
  chroot "$tmp" apt-mark showmanual | LC_ALL=C sort > "$tmp/.minbase-manual"
  # debian:bookworm-slim also takes bookworm-updates and bookworm-security;
  # their lines are derived from the one debootstrap wrote.
  line=$(grep -m1 "^deb .* $suite main" "$tmp/etc/apt/sources.list") || fail "unexpected sources.list from debootstrap"
  mirror=$(echo "$line" | awk '{print $2}')
  {
    echo "deb $mirror $suite-updates main"
    echo "deb ${DEBIAN_SECURITY_MIRROR:-$mirror-security} $suite-security main"
  } >> "$tmp/etc/apt/sources.list"
  say "install-runtime.sh: $(tr '\n' ' ' < "$packages_file")"
  cp "$packages_file" "$tmp/RUNTIME-PACKAGES"
  cp "$install_script" "$tmp/install-runtime.sh"
  chroot "$tmp" sh /install-runtime.sh /RUNTIME-PACKAGES > "$cache/install.log" 2>&1 ||
    { tail -20 "$cache/install.log" >&2; fail "install-runtime.sh in the chroot failed (log: $cache/install.log)"; }
  rm "$tmp/RUNTIME-PACKAGES" "$tmp/install-runtime.sh"
  mv "$tmp" "$root"
  say "root file system cached: $root ($(du -sh "$root" | cut -f1))"
else
  say "cached root file system: $root"
fi
touch "$root"
# Root file systems of older package lists, unused for two weeks.
find "$cache" -maxdepth 1 -name 'root-*' ! -name "root-$key" -mtime +14 -exec rm -rf {} + 2>/dev/null || true

# ---------------------------------------------------------------- the tarball
home=/work  # the user marquee's home in the image (install-runtime.sh)
work="$home/dist-test"
cleanup() { rm -rf "$root/opt/marquee" "$root$work"; }
trap cleanup EXIT
cleanup
mkdir -p "$root/opt/marquee" "$root$work/Pipelines"
tar -xzf "$tarball" -C "$root/opt/marquee"
contents=$(tar -tzf "$tarball" | LC_ALL=C sort | tr '\n' ' ')
[ "$contents" = "README.md RUNTIME-PACKAGES bin/marquee " ] || fail "tarball holds: $contents"
cmp -s "$root/opt/marquee/RUNTIME-PACKAGES" "$packages_file" || fail "the tarball's RUNTIME-PACKAGES is not the repository's"
cp "$repo/Pipelines/demo.json" "$root$work/Pipelines/"
chown -R 10001:10001 "$root$work"

# Runs a command in the chroot with its own /proc and a clean environment.
in_root() {
  unshare --mount --pid --fork --mount-proc="$root/proc" \
    chroot "$@"
}
as_user() {
  in_root --userspec=10001:10001 "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/work \
    TERM=dumb sh -c "cd $work && $1"
}

# ---------------------------------------------------------------- checks
[ "$(in_root "$root" id -u marquee):$(in_root "$root" id -g marquee)" = "10001:10001" ] || fail "no user marquee (10001:10001)"
[ "$(stat -c %u "$root/work")" = 10001 ] || fail "/work does not belong to marquee"
[ "$(readlink "$root/usr/local/bin/marquee")" = /opt/marquee/bin/marquee ] || fail "/usr/local/bin/marquee is not the tarball's binary"
swift_libraries=$(find "$root" -xdev \( -name 'libswift*' -o -name 'libFoundation*.so*' -o -name 'libdispatch.so*' \) -print)
[ -z "$swift_libraries" ] || fail "Swift libraries in the root file system: $swift_libraries"
[ ! -e "$root/opt/swift" ] && [ ! -e "$root/usr/bin/swift" ] || fail "a Swift toolchain is in the root file system"

# Exactly RUNTIME-PACKAGES was installed by hand: nothing less, nothing more.
manual=$(in_root "$root" apt-mark showmanual | LC_ALL=C sort | LC_ALL=C comm -23 - "$root/.minbase-manual")
[ "$manual" = "$(cat "$packages_file")" ] || fail "packages installed by hand differ from RUNTIME-PACKAGES: $manual"
# The list names nothing minbase already has, and every base package that
# runtime-packages.sh leaves out is there.
while read -r package; do
  ! grep -qx "$package" "$root/.minbase-packages" || fail "$package is in minbase already: not a runtime package"
done < "$packages_file"
for package in $("$here/runtime-packages.sh" --base); do
  grep -qx "$package" "$root/.minbase-packages" || fail "base package $package is not in a minbase system"
done

ldd_output=$(in_root "$root" ldd /opt/marquee/bin/marquee)
! grep -q "not found" <<<"$ldd_output" || fail "ldd in the chroot: $(grep "not found" <<<"$ldd_output")"
libraries=0
while read -r soname arrow path _; do
  case $soname in linux-vdso.so.*) continue ;; esac
  [ "$arrow" = "=>" ] || path=$soname  # the loader: `/lib64/ld-linux-x86-64.so.2 (0x…)`
  case $path in
    /lib/* | /usr/lib/* | /lib64/*) ;;
    *) fail "ldd resolves $soname outside Debian's library directories: $path" ;;
  esac
  [ -e "$root$path" ] || fail "ldd resolves $soname to $path, which is not in the root file system"
  libraries=$((libraries + 1))
done <<<"$ldd_output"
# Each library the binary names, looked up in the chroot's own dpkg database.
needed=$(LC_ALL=C readelf -d "$root/opt/marquee/bin/marquee" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
allowed=" $(tr '\n' ' ' < "$packages_file") $("$here/runtime-packages.sh" --base | tr '\n' ' ') "
for soname in $needed; do
  path=$(awk -v so="$soname" '$1 == so && $2 == "=>" { print $3 } $1 ~ ("/" so "$") { print $1 }' <<<"$ldd_output" | head -1)
  owner=$(in_root "$root" sh -c "dpkg-query -S '$path' 2>/dev/null || dpkg-query -S '${path#/usr}' 2>/dev/null || dpkg-query -S '/usr$path'") ||
    fail "$soname ($path) belongs to no package in the chroot"
  package=${owner%%:*}
  case $allowed in *" $package "*) ;; *) fail "$soname comes from $package, which is neither in RUNTIME-PACKAGES nor a base package" ;; esac
done
say "ldd in the chroot: $libraries libraries, all inside the root file system; $(wc -w <<<"$needed") named by the binary, all from RUNTIME-PACKAGES or the base"

# ---------------------------------------------------------------- Marquee
as_user "marquee --version" | sed 's/^/  /'
as_user "marquee demo-sources Pipelines/demo-media" > /dev/null || fail "marquee demo-sources"
say "demo-sources ok"
as_user "marquee build Pipelines/demo.json --out out --jobs 2 --log-format plain" > "$root$work/build.log" 2>&1 ||
  { tail -20 "$root$work/build.log" >&2; fail "marquee build"; }
grep -q "0 reused, 4 built; published" "$root$work/build.log" || { tail -5 "$root$work/build.log" >&2; fail "marquee build did not build the 4 demo items"; }
say "build ok: $(grep -o 'run summary.*' "$root$work/build.log" | tail -1)"
as_user "marquee verify out/demo" || fail "marquee verify"
as_user "marquee validate Pipelines/demo.json" || fail "marquee validate"
say "passed: marquee runs from the tarball on Debian 12 minbase + RUNTIME-PACKAGES, without the Swift toolchain"
