#!/usr/bin/env bash
# The browser the viewer's tests drive: Debian's chromium and chromium-driver, installed from
# the system's package manager when missing (the tests never download a browser at run time).
# Root installs directly; otherwise sudo is tried without a password. If neither can install,
# say so in one line and fail: `make test BROWSER=0` runs the other tests without a browser.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install: no apt-get here; install Chromium and its ChromeDriver (/usr/bin/chromium, /usr/bin/chromedriver), or run make test BROWSER=0" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "install: chromium and chromium-driver are missing and this user cannot install them: sudo apt-get install chromium chromium-driver, or run make test BROWSER=0" >&2
    exit 1
  fi
fi
echo "install: chromium and chromium-driver (apt-get)"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver
