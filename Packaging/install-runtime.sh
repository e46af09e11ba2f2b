#!/bin/sh
# The runtime system's setup, on Debian 12 (bookworm-slim or minbase), as
# root: the packages in PACKAGES_FILE (RUNTIME-PACKAGES) and nothing else,
# the unprivileged user marquee (10001:10001, home /work) and the command
# /usr/local/bin/marquee -> /opt/marquee/bin/marquee (the tarball's layout).
# The Dockerfile's runtime stage runs it, and make dist-test runs it in its
# chroot, so the test checks the image's recipe.
set -eu
packages_file=${1:?usage: install-runtime.sh PACKAGES_FILE}
export DEBIAN_FRONTEND=noninteractive
apt-get update
xargs -a "$packages_file" apt-get install -y --no-install-recommends
apt-get clean
rm -rf /var/lib/apt/lists/*
groupadd --system --gid 10001 marquee
useradd --system --uid 10001 --gid 10001 --home-dir /work --create-home --shell /usr/sbin/nologin marquee
ln -s /opt/marquee/bin/marquee /usr/local/bin/marquee
