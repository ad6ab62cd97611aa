#!/usr/bin/env bash
# Installs tavli-board as a service on a Raspberry Pi. Run it once, as root, from a checkout:
#
#     sudo systemd/install.sh
#
# It copies the checkout to /opt/tavli-board with its own virtual environment (and the Pi drivers),
# creates the unprivileged user `tavli` (groups gpio, spi, dialout), puts the config in
# /etc/tavli-board/config.toml (only if there is none yet), the udev rule that names the sensor MCU
# /dev/tavli-sensors, and the unit; checks the configuration; and starts the service at once and at
# every boot. Running it again updates the program and keeps the configuration.
#
# Staging: with DESTDIR=/some/dir it only writes the files under that folder (no user, no
# environment, no systemctl, no udevadm), for packaging and for the tests; TAVLI_BOARD then names
# a tavli-board command to render the udev rule and check the configuration with.
set -euo pipefail

SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${PREFIX:-/opt/tavli-board}
DESTDIR=${DESTDIR:-}
SERVICE_USER=tavli
CONFIG_DIR=/etc/tavli-board
TAVLI_BOARD=${TAVLI_BOARD:-$PREFIX/.venv/bin/tavli-board}

say() { printf 'install.sh: %s\n' "$*"; }
fail() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

if [[ -z "$DESTDIR" && $(id -u) -ne 0 ]]; then
    fail "run me as root: sudo $0"
fi

say "copying $SOURCE to $DESTDIR$PREFIX"
mkdir -p "$DESTDIR$PREFIX"
if [[ "$(cd "$DESTDIR$PREFIX" && pwd)" != "$SOURCE" ]]; then
    tar -C "$SOURCE" --exclude=.git --exclude=.venv --exclude=__pycache__ --exclude=.pytest_cache \
        --exclude=.hypothesis --exclude='*.egg-info' -cf - . | tar -C "$DESTDIR$PREFIX" -xf -
fi

if [[ -z "$DESTDIR" ]]; then
    if ! id "$SERVICE_USER" >/dev/null 2>&1; then
        say "creating the system user $SERVICE_USER"
        useradd --system --home-dir /var/lib/tavli-board --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
    fi
    for group in gpio spi dialout; do
        if getent group "$group" >/dev/null; then
            usermod -a -G "$group" "$SERVICE_USER"
        else
            say "warning: there is no group $group on this system; $SERVICE_USER is not in it"
        fi
    done
    say "creating the environment $PREFIX/.venv (this takes a few minutes on a Pi)"
    python3 -m venv "$PREFIX/.venv"
    "$PREFIX/.venv/bin/pip" install --disable-pip-version-check -q -e "$PREFIX[pi]"
fi

mkdir -p "$DESTDIR$CONFIG_DIR"
if [[ -e "$DESTDIR$CONFIG_DIR/config.toml" ]]; then
    say "keeping the existing $CONFIG_DIR/config.toml"
else
    install -m 0644 "$SOURCE/systemd/config.toml" "$DESTDIR$CONFIG_DIR/config.toml"
    say "installed $CONFIG_DIR/config.toml: edit it for this board, then: tavli-board config check"
fi
say "checking the configuration"
"$TAVLI_BOARD" config check --config "$DESTDIR$CONFIG_DIR/config.toml" \
    || fail "fix $CONFIG_DIR/config.toml (every problem is listed above), then run me again"

mkdir -p "$DESTDIR/etc/udev/rules.d" "$DESTDIR/etc/systemd/system"
"$TAVLI_BOARD" config udev-rule --config "$DESTDIR$CONFIG_DIR/config.toml" > "$DESTDIR/etc/udev/rules.d/99-tavli-board.rules"
sed "s#/opt/tavli-board#$PREFIX#g" "$SOURCE/systemd/tavli-board.service" > "$DESTDIR/etc/systemd/system/tavli-board.service"
say "installed the udev rule and the unit"

if [[ -n "$DESTDIR" ]]; then
    say "staged under $DESTDIR"
    exit 0
fi

driver=$("$TAVLI_BOARD" config show --config "$CONFIG_DIR/config.toml" | sed -n 's/^leds.driver = "\([^"]*\)".*/\1/p')
model=$(tr -d '\0' < /proc/device-tree/model 2>/dev/null || true)
if [[ "$driver" == "neopixel" && "$model" != "Raspberry Pi 5"* ]]; then
    say "warning: leds.driver \"neopixel\" needs root on a Pi 1-4, and the service runs as $SERVICE_USER:"
    say "         use driver \"neopixel_spi\" (data on MOSI, pin 19; dtparam=spi=on in config.txt)"
fi

udevadm control --reload-rules
udevadm trigger --subsystem-match=tty
systemctl daemon-reload
systemctl enable tavli-board.service
systemctl restart tavli-board.service
say "done: systemctl status tavli-board; journalctl -u tavli-board; tavli-board selftest (with the service stopped)"
