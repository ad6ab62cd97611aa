#!/usr/bin/env bash
# Debian packages some tests use: gnubg (imports the exported match files), graphviz (renders
# the state diagram), systemd (systemd-analyze verifies the units and scores their hardening),
# chromium with chromium-driver (the web companion's pages in a real headless browser, via Selenium)
# gcc, libc6-dev and python3-dev (pip builds the rules' compiled search, which the tests then
# compare with the pure-Python one) and mosquitto (the club's MQTT broker, which the club's tests
# start). Without them those tests skip with a reason (and the rules run in pure Python); CI installs
# them so they run.
set -euo pipefail
wanted=(gnubg graphviz systemd chromium chromium-driver gcc libc6-dev python3-dev mosquitto)
missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "system-packages: cannot install ${missing[*]} (needs root and apt-get); their tests will skip" >&2
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
