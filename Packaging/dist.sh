#!/bin/sh
# make dist: packs BINARY (a `swift build -c release --static-swift-stdlib`
# executable) into TARBALL with bin/marquee, RUNTIME-PACKAGES and README.md.
#
# Fails when the repository's RUNTIME-PACKAGES is not exactly the list
# derived from what BINARY links (Packaging/runtime-packages.sh): the
# Dockerfile installs that file, so it must not drift from the binary.
# `make runtime-packages` rewrites it.
set -eu
binary=${1:?usage: dist.sh BINARY TARBALL}
tarball=${2:?usage: dist.sh BINARY TARBALL}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")

derived=$("$here/runtime-packages.sh" "$binary")
if [ "$derived" != "$(cat "$repo/RUNTIME-PACKAGES")" ]; then
  echo "dist: RUNTIME-PACKAGES differs from what $binary links (- file, + derived):" >&2
  printf '%s\n' "$derived" | diff -u "$repo/RUNTIME-PACKAGES" - | tail -n +3 >&2 || true
  echo "dist: run 'make runtime-packages', review and commit RUNTIME-PACKAGES" >&2
  exit 1
fi

# The tarball's timestamps: the commit's time where there is one, so the
# same commit packs the same way.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || echo 0)}
commit=${MARQUEE_COMMIT:-$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
version_output=$("$binary" --version)
version=$(printf '%s\n' "$version_output" | sed -n '1s/^marquee //p')

stage=$(dirname "$tarball")/stage
rm -rf "$stage"
mkdir -p "$stage/bin"
# DWARF goes (4 MB); the symbol table stays for readable crash backtraces.
strip --strip-debug -o "$stage/bin/marquee" "$binary"
cp "$repo/RUNTIME-PACKAGES" "$stage/RUNTIME-PACKAGES"
{
  echo "# Marquee $version for Linux x86_64 (Debian 12)"
  echo
  echo "Built from commit $commit. \`marquee --version\` on the build machine:"
  echo
  printf '%s\n' "$version_output" | sed 's/^/    /'
  echo
  cat "$here/dist-README.md"
} > "$stage/README.md"
chmod 0755 "$stage/bin/marquee"
chmod 0644 "$stage/RUNTIME-PACKAGES" "$stage/README.md"

tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
  -C "$stage" -cf - bin/marquee RUNTIME-PACKAGES README.md | gzip -n -9 > "$tarball.tmp"
mv "$tarball.tmp" "$tarball"
rm -rf "$stage"
(cd "$(dirname "$tarball")" && sha256sum "$(basename "$tarball")" > "$(basename "$tarball").sha256")
echo "dist: $tarball ($(du -h "$tarball" | cut -f1)), $(wc -l < "$repo/RUNTIME-PACKAGES") runtime packages"
