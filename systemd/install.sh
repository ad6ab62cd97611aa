#!/usr/bin/env bash
# Installs tavli-board as a service on a Raspberry Pi (3, 4 or 5, Pi OS Bookworm). Run it as root from
# a checkout, once to install and again to update (it keeps the configuration; running it twice
# changes nothing the second time):
#
#     sudo systemd/install.sh
#
# It copies the checkout to /opt/tavli-board as root's files (the checkout's owner cannot change
# what root and the service run), installs it there, not editable, with the Pi drivers in its own
# environment, and puts `tavli-board` on root's PATH (/usr/local/bin) for selftest, config check and
# bug-report; creates the unprivileged user `tavli` (groups gpio, spi, dialout); puts the config in
# /etc/tavli-board/config.toml (only if there is none yet), the udev rule that names the sensor MCU
# /dev/tavli-sensors, and the units (the referee and its web companion); checks the configuration;
# lets the companion save settings (the config folder and file belong to the group `tavli`); sets the
# Pi up for the board it runs
# on (/proc/device-tree/model), in a block of config.txt it owns and in cmdline.txt:
#   - LEDs, driver "auto" or "neopixel_spi" on a Pi 1-4: SPI on, spidev.bufsiz large enough for a
#     whole frame in one transfer, and the core clock held steady so the SPI clock is (core_freq=250
#     on a Pi 1-3, core_freq_min=500 on a Pi 4). A Pi 5 drives them through its PIO: nothing to set.
#   - sensor link "uart": the PL011 UART on GPIO14/15 as /dev/ttyAMA0 (Pi 1-4: enable_uart=1,
#     dtoverlay=disable-bt and no serial console; Pi 5: dtparam=uart0=on). "usb": nothing to set.
# and starts both services at once and at every boot. A changed boot configuration asks for a reboot.
#
# Staging: with DESTDIR=/some/dir it writes only under that folder (no user, no systemctl, no
# udevadm, no reboot), for packaging and for the tests, which also set MODEL_FILE (the board's model
# string), PYTHON (what makes the environment) and TAVLI_BOARD (the command that checks the
# configuration and renders the udev rule).
set -euo pipefail
umask 022

SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${PREFIX:-/opt/tavli-board}
DESTDIR=${DESTDIR:-}
MODEL_FILE=${MODEL_FILE:-/proc/device-tree/model}
PYTHON=${PYTHON:-python3}
TAVLI_BOARD=${TAVLI_BOARD:-$DESTDIR$PREFIX/.venv/bin/tavli-board}
SERVICE_USER=tavli
CONFIG_DIR=/etc/tavli-board
SPIDEV_BUFSIZ=65536   # bytes in one SPI transfer: a 200-LED frame is 4,928 (firmware_host.leds.strips)
BLOCK_START="# >>> tavli-board: written by systemd/install.sh, rewritten by every run"
BLOCK_END="# <<< tavli-board"

say() { printf 'install.sh: %s\n' "$*"; }
fail() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

if [[ -z "$DESTDIR" && $(id -u) -ne 0 ]]; then
    fail "run me as root: sudo $0"
fi

model=$(tr -d '\0' < "$MODEL_FILE" 2>/dev/null || true)
case "$model" in
    "Raspberry Pi 5"* | "Raspberry Pi 500"* | "Raspberry Pi Compute Module 5"*) pi=5 ;;
    "Raspberry Pi 4"* | "Raspberry Pi 400"* | "Raspberry Pi Compute Module 4"*) pi=4 ;;
    "Raspberry Pi"*) pi=3 ;;   # a Pi 1-3 or Zero: the same SPI and UART set-up
    *) pi="" ;;
esac
say "board: ${model:-not a Raspberry Pi ($MODEL_FILE is missing)}"

# -- the program -----------------------------------------------------------------------------------

target="$DESTDIR$PREFIX"
mkdir -p "$target"
chmod 0755 "$target"
if [[ "$(cd "$target" && pwd)" != "$SOURCE" ]]; then
    say "copying $SOURCE to $target as root's files"
    # Everything but the environment is replaced, so an update leaves no stale module behind.
    find "$target" -mindepth 1 -maxdepth 1 ! -name .venv -exec rm -rf {} +
    tar -C "$SOURCE" --exclude=.git --exclude=.venv --exclude=__pycache__ --exclude=.pytest_cache \
        --exclude=.hypothesis --exclude='*.egg-info' --exclude=build --exclude='*.so' \
        --owner=0 --group=0 --numeric-owner --mode='u+rwX,go+rX,go-w' -cf - . \
        | tar -C "$target" --no-same-owner -xf -
fi

# pip builds the legal-play search's compiled part (firmware_host/rules/_search.c) from source; without
# a C compiler and Python's headers the install goes on and the rules run in pure Python, slower.
if [[ -z "$DESTDIR" ]] && command -v apt-get >/dev/null; then
    build_tools=()
    for package in gcc libc6-dev python3-dev; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || build_tools+=("$package")
    done
    if [[ ${#build_tools[@]} -gt 0 ]]; then
        say "installing ${build_tools[*]} to build the rules' compiled search"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${build_tools[@]}" >/dev/null \
            || say "could not install ${build_tools[*]}: the rules will run in pure Python (slower)"
    fi
fi
say "installing it into $PREFIX/.venv with the Pi drivers and the web companion (a few minutes on a Pi)"
"$PYTHON" -m venv "$target/.venv"
"$target/.venv/bin/pip" install --disable-pip-version-check --quiet "$target[pi,web]"
mkdir -p "$DESTDIR/usr/local/bin"
ln -sfn "$PREFIX/.venv/bin/tavli-board" "$DESTDIR/usr/local/bin/tavli-board"

# -- configuration, udev rule, unit ----------------------------------------------------------------

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
settings=$("$TAVLI_BOARD" config show --config "$DESTDIR$CONFIG_DIR/config.toml")
setting() { sed -n "s/^$1 = \"\([^\"]*\)\".*/\1/p" <<< "$settings"; }
driver=$(setting leds.driver)
link=$(setting sensors.mcu.link)

mkdir -p "$DESTDIR/etc/udev/rules.d" "$DESTDIR/etc/systemd/system"
"$TAVLI_BOARD" config udev-rule --config "$DESTDIR$CONFIG_DIR/config.toml" > "$DESTDIR/etc/udev/rules.d/99-tavli-board.rules"
chmod 0644 "$DESTDIR/etc/udev/rules.d/99-tavli-board.rules"
for unit in tavli-board.service tavli-board-web.service; do
    sed "s#/opt/tavli-board#$PREFIX#g" "$SOURCE/systemd/$unit" > "$DESTDIR/etc/systemd/system/$unit"
    chmod 0644 "$DESTDIR/etc/systemd/system/$unit"
done
say "installed the udev rule and the units"

# -- the Pi's boot configuration -------------------------------------------------------------------

boot="$DESTDIR/boot/firmware"   # Bookworm; older releases have it in /boot
[[ -d "$boot" ]] || boot="$DESTDIR/boot"
config_lines=()
cmdline_add=()
cmdline_drop=()
if [[ -z "$pi" ]]; then
    say "warning: not a Raspberry Pi, so the boot configuration is left alone"
else
    if [[ "$driver" == neopixel_spi || ( "$driver" == auto && $pi != 5 ) ]]; then
        config_lines+=("dtparam=spi=on")
        case $pi in
            4) config_lines+=("core_freq_min=500") ;;
            3) config_lines+=("core_freq=250") ;;
        esac   # a Pi 5's SPI clock does not follow its core clock
        cmdline_drop+=("spidev.bufsiz=*")
        cmdline_add+=("spidev.bufsiz=$SPIDEV_BUFSIZ")
    elif [[ $pi != 5 && "$driver" == neopixel ]]; then
        say "warning: leds.driver \"neopixel\" needs root on a Pi 1-4, and the service runs as $SERVICE_USER:"
        say "         leave leds.driver at \"auto\" (SPI, data on GPIO10, pin 19)"
    fi
    if [[ "$link" == uart && $pi == 5 ]]; then
        config_lines+=("dtparam=uart0=on")
    elif [[ "$link" == uart ]]; then
        config_lines+=("enable_uart=1" "dtoverlay=disable-bt")
        cmdline_drop+=("console=serial0,*" "console=ttyAMA0,*")
    fi
fi

boot_changed=no
# Rewrites a file only when its text changes (so a second run touches nothing).
replace_file() {
    local file=$1 text=$2
    if [[ "$(cat "$file")" != "$text" ]]; then
        printf '%s\n' "$text" > "$file"
        boot_changed=yes
    fi
}
if [[ -n "$pi" && -f "$boot/config.txt" ]]; then
    kept=$(sed "\|^$BLOCK_START\$|,\|^$BLOCK_END\$|d" "$boot/config.txt")
    if ((${#config_lines[@]})); then
        block=$(printf '%s\n' "$BLOCK_START" "[all]" "${config_lines[@]}" "$BLOCK_END")
        replace_file "$boot/config.txt" "$kept"$'\n'"$block"
    else
        replace_file "$boot/config.txt" "$kept"
    fi
elif [[ -n "$pi" ]]; then
    say "warning: no config.txt in $boot; set by hand: ${config_lines[*]:-nothing}"
fi
if [[ -n "$pi" && -f "$boot/cmdline.txt" ]]; then
    read -ra given < "$boot/cmdline.txt"
    words=()
    for word in ${given[@]+"${given[@]}"}; do
        for pattern in ${cmdline_drop[@]+"${cmdline_drop[@]}"}; do
            # shellcheck disable=SC2053  # the pattern is a glob on purpose
            [[ "$word" == $pattern ]] && continue 2
        done
        words+=("$word")
    done
    replace_file "$boot/cmdline.txt" "$(echo ${words[@]+"${words[@]}"} ${cmdline_add[@]+"${cmdline_add[@]}"})"
fi
[[ $boot_changed == yes ]] && say "changed the boot configuration in $boot: reboot for it to take effect"

if [[ -n "$DESTDIR" ]]; then
    say "staged under $DESTDIR"
    exit 0
fi

# -- the system ------------------------------------------------------------------------------------

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
# The web companion (tavli-board-web, as $SERVICE_USER) saves settings: the file, and its folder for
# the atomic rename.
chgrp "$SERVICE_USER" "$CONFIG_DIR" "$CONFIG_DIR/config.toml"
chmod 0770 "$CONFIG_DIR"
chmod 0660 "$CONFIG_DIR/config.toml"
if [[ "$link" == uart && -n "$pi" && $pi != 5 ]]; then
    systemctl disable --now hciuart.service 2>/dev/null || true   # Bluetooth's UART is the sensors' now
fi
udevadm control --reload-rules
udevadm trigger --subsystem-match=tty
systemctl daemon-reload
systemctl enable tavli-board.service tavli-board-web.service
systemctl restart tavli-board.service tavli-board-web.service
say "done: systemctl status tavli-board; journalctl -u tavli-board; sudo tavli-board selftest (service stopped)"
say "the web companion: port $(sed -n 's/^web.port = \([0-9]*\).*/\1/p' <<< "$settings") of this Pi (settings need [web] pin: tavli-board web-pin)"
[[ $boot_changed == yes ]] && say "reboot now (sudo reboot): the boot configuration changed"
exit 0
