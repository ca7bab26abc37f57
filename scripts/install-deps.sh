#!/usr/bin/env bash
# Installs every Debian package Plaudit needs to build, test, lint and benchmark (chromium for
# the browser tests, node/npm for the web bundles, whose npm packages come with `make build`;
# clang 22 from bookworm-security for `make lint`, since 14's clang-tidy takes 3x as long, and
# for `make fuzz` (its libFuzzer and sanitizer runtimes: libclang-rt-22-dev);
# prometheus only for its promtool, which ctest alert_rules runs on the alert rules).
# Idempotent: does nothing (and needs no network) when all packages are present.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libhiredis-dev libsqlite3-dev sqlite3 libpq-dev libmariadb-dev libsodium-dev libgumbo-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libicu-dev libidn2-dev zlib1g-dev libexpat1-dev
  libcurl4-openssl-dev libssl-dev
  libspdlog-dev libfmt-dev libcli11-dev libtomlplusplus-dev libexpected-dev
  prometheus-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
  libjemalloc-dev gnuplot-nox valgrind python3
  help2man dpkg-dev systemd prometheus
  python3-aiosmtpd
  redis-server redis-tools postgresql postgresql-client mariadb-server mariadb-client wrk curl nginx
  chromium chromium-driver
  clang-format-22 clang-tidy-22 clang-22 libclang-rt-22-dev
)
# The web front end is built with Node and npm (web/package-lock.json); Debian's own only
# when there is no node at all (a newer one from elsewhere is fine).
if ! command -v node >/dev/null 2>&1; then
  PKGS+=(nodejs npm)
fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Boost 1.74's dev headers conflict with 1.81's; remove them if present.
if dpkg-query -W -f='${Status}' libboost1.74-dev 2>/dev/null | grep -q "install ok installed"; then
  missing+=("libboost1.74-dev-")
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
APT=($SUDO apt-get -o DPkg::Lock::Timeout=600 -y -q)
# nginx is only a benchmark reference (bench/lib/nginx.sh runs the binary itself, on a free
# port, with its own config), and prometheus is here for promtool: neither packaged service
# may start (prometheus's would hold port 9090). Their postinsts start them through
# invoke-rc.d (without systemd) or deb-systemd-invoke, both of which obey a policy-rc.d that
# says no: put one in place for this install when there is none (and remove it afterwards).
POLICY=/usr/sbin/policy-rc.d
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 755 "$POLICY"
  trap '$SUDO rm -f "$POLICY"' EXIT
fi
"${APT[@]}" update -q >/dev/null
"${APT[@]}" install --no-install-recommends "${missing[@]}"
# The packaged redis-server/postgresql/mariadb services are not used: tests and the embedded
# mode start private servers. Stop them where they were auto-started, if possible.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
  $SUDO systemctl disable --now nginx >/dev/null 2>&1 || true
  $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
  $SUDO systemctl disable --now mariadb >/dev/null 2>&1 || true
fi
