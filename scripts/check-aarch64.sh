#!/bin/bash
# The install on a Raspberry Pi's processor, without a Pi: Debian bookworm for arm64 (the base of
# Raspberry Pi OS Bookworm, Python 3.11) in a folder, run under qemu-user emulation. Inside it,
# `bootstrap.py` installs the project from the committed tree as on a Pi (the compiled search built by
# the Pi's own gcc) and runs the tests given (by default the ones comparing the compiled search with
# the Python one).
#
#   sudo scripts/check-aarch64.sh [pytest arguments...]     (ROOTFS=folder, default /tmp/tavli-arm64)
#
# Needs root, Debian's qemu-user-static, binfmt-support and debootstrap (installed here if missing),
# and the network for Debian's and PyPI's packages. Slow: emulation runs some 10-20 times slower.
set -euo pipefail
ROOTFS=${ROOTFS:-/tmp/tavli-arm64}
REPO=$(cd "$(dirname "$0")/.." && pwd)
TESTS=("$@")
[ ${#TESTS[@]} -gt 0 ] || TESTS=(tests/rules/test_rules_compiled.py)

command -v debootstrap >/dev/null && [ -e /usr/bin/qemu-aarch64-static ] ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static binfmt-support debootstrap
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
[ -x "$ROOTFS/usr/bin/python3" ] ||
    debootstrap --arch=arm64 --variant=minbase \
        --include=python3,python3-dev,python3-venv,gcc,libc6-dev,git,ca-certificates \
        bookworm "$ROOTFS" http://deb.debian.org/debian
# A proxy's certificate authority, where this machine trusts one, is trusted inside too.
cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
mountpoint -q "$ROOTFS/proc" || mount -t proc proc "$ROOTFS/proc"
mountpoint -q "$ROOTFS/dev" || mount --bind /dev "$ROOTFS/dev"
rm -rf "$ROOTFS/work" && mkdir -p "$ROOTFS/work"
git clone -q "$REPO" "$ROOTFS/work/main"
[ ! -d "$REPO/../shared" ] || cp -r "$REPO/../shared" "$ROOTFS/work/shared"
chroot "$ROOTFS" /bin/bash -c "
    set -e; cd /work/main; export HOME=/tmp/home; mkdir -p \$HOME
    python3 bootstrap.py tavli-board --help >/dev/null
    .venv/bin/python -c 'import platform, sys; from firmware_host.rules import plays
print(platform.machine(), sys.version.split()[0], \"compiled search:\", plays.COMPILED)'
    python3 bootstrap.py test -q -p no:cacheprovider ${TESTS[*]}"
