#!/bin/bash
# The install on a Raspberry Pi's processor, without a Pi: Debian bookworm for arm64 (the base of
# Raspberry Pi OS Bookworm, Python 3.11) in a folder, run under qemu-user emulation. Inside it the
# committed tree is installed as `systemd/install.sh` installs it on a Pi (`pip install '.[pi]'`, a
# regular install: the Pi drivers' wheels for aarch64 and the compiled search built by the Pi's own
# gcc), then a chosen subset of the tests runs against that install, bounded in time.
#
#   sudo scripts/check-aarch64.sh [pytest arguments...]
#       ROOTFS=folder (default /tmp/tavli-arm64; an existing root is reused, FRESH=1 builds it again)
#       TEST_LIMIT_S=seconds (default 1200: the tests are stopped there and the run fails)
#
# The default subset is what can differ on aarch64, nothing that only repeats the x86_64 run:
#   tests/rules/test_rules_compiled.py  the compiled search (C, built for aarch64) against the Python one
#   tests/bot/test_bot_encode_compiled.py  the bot's compiled inputs (C, built for aarch64) against numpy's
#   tests/hw/test_pin_map.py            the pin map and the LED driver chosen per Pi model
#   tests/leds/test_strips.py           the real neopixel / neopixel_spi classes the `pi` extra installed
# The rest of the suite is pure Python and gains nothing from emulation, which runs it 10-20 times
# slower (tests/rules, referee, sensing and controller together took over 20 minutes).
#
# When it runs: by hand, not in CI (.ci/run), since it needs root and the network and takes 12 minutes
# on a kept root, 23 from a fresh one (2 shared, loaded cores; bench/records/aarch64-2026-11-27.txt):
# after a change to setup.py, firmware_host/rules/_search.c, firmware_host/bot/_encode.c or the `pi`
# extra in pyproject.toml, and before a release. Each stage prints its time.
# Needs root, Debian's qemu-user-static, binfmt-support and debootstrap (installed here if missing),
# Debian's archive (the one this machine's apt uses) and PyPI.
set -euo pipefail
ROOTFS=${ROOTFS:-/tmp/tavli-arm64}
TEST_LIMIT_S=${TEST_LIMIT_S:-1200}
REPO=$(cd "$(dirname "$0")/.." && pwd)
TESTS=("$@")
[ ${#TESTS[@]} -gt 0 ] || TESTS=(tests/rules/test_rules_compiled.py tests/bot/test_bot_encode_compiled.py
                                  tests/hw/test_pin_map.py tests/leds/test_strips.py)

stage_started=$SECONDS
stage() {   # the time of the stage that just ended, then the name of the next one
    echo "check-aarch64: $1 took $((SECONDS - stage_started)) s" >&2
    stage_started=$SECONDS
}

command -v debootstrap >/dev/null && [ -e /usr/bin/qemu-aarch64-static ] && command -v update-binfmts >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static binfmt-support debootstrap
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-aarch64
# Debian's archive as this machine's apt has it (deb822 sources or a one-line sources.list).
MIRROR=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$MIRROR" ] || MIRROR=$(awk '$1 == "deb" && $2 ~ /debian$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
stage "preparing the host"

unmount() {
    for mounted in "$ROOTFS/dev" "$ROOTFS/proc"; do
        ! mountpoint -q "$mounted" || umount "$mounted"
    done
}
trap unmount EXIT
if [ "${FRESH:-0}" = 1 ]; then
    unmount
    rm -rf "$ROOTFS"
fi
[ -x "$ROOTFS/usr/bin/python3" ] ||
    debootstrap --arch=arm64 --variant=minbase \
        --include=python3,python3-venv,python3-pip,python3-dev,gcc,libc6-dev,git,ca-certificates \
        bookworm "$ROOTFS" "$MIRROR"
stage "the arm64 root (debootstrap from $MIRROR)"

# A proxy's certificate authority, where this machine trusts one, is trusted inside too.
cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
mountpoint -q "$ROOTFS/proc" || mount -t proc proc "$ROOTFS/proc"
mountpoint -q "$ROOTFS/dev" || mount --bind /dev "$ROOTFS/dev"
rm -rf "$ROOTFS/work" && mkdir -p "$ROOTFS/work"
git clone -q "$REPO" "$ROOTFS/work/main"
[ ! -d "$REPO/../shared" ] || cp -r "$REPO/../shared" "$ROOTFS/work/shared"
inside() {
    chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp/home PIP_DISABLE_PIP_VERSION_CHECK=1 \
        PIP_CERT=/etc/ssl/certs/ca-certificates.crt /bin/bash -c "set -e; mkdir -p /tmp/home; cd /work/main; $1"
}
inside "python3 -m venv /work/venv"
stage "the committed tree copied in, a virtual environment"

inside "/work/venv/bin/pip install -q '.[pi]'"
stage "pip install '.[pi]'"

# Only what the subset imports beyond the install (the test extra's browser and MicroPython parts
# have no use here).
inside "/work/venv/bin/pip install -q pytest hypothesis"
stage "pip install pytest hypothesis"

# The installed package, not the checkout: python -P and pytest (not `python -m pytest`) leave the
# current folder off the path.
status=0
inside "/work/venv/bin/python -P -c 'import platform, sys, firmware_host; from firmware_host.rules import plays
print(platform.machine(), sys.version.split()[0], firmware_host.__file__, \"compiled search:\", plays.COMPILED)'
    timeout $TEST_LIMIT_S /work/venv/bin/pytest -q -p no:cacheprovider ${TESTS[*]}" || status=$?
stage "the tests (${TESTS[*]}; exit status $status, 124: stopped at $TEST_LIMIT_S s)"
exit $status
