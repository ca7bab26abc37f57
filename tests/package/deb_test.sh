#!/usr/bin/env bash
# The Debian package (issue 49; cmake/Package.cmake), built by CPack from BUILD_DIR, unpacked
# into a scratch root with `dpkg-deb -x` (never installed on this machine), and checked:
# its files, its control data (conffiles, dependencies), the binary running from the scratch
# root, the config file naming every long flag (commented, so it changes nothing), the man
# page, and the unit by `systemd-analyze verify`.
#   bash tests/package/deb_test.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: deb_test.sh BUILD_DIR}" && pwd)
WORK=$(mktemp -d /tmp/plaudit-deb-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "deb_test: $*" >&2; exit 1; }

cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$WORK/out" >"$WORK/cpack.log" 2>&1 ||
  { cat "$WORK/cpack.log" >&2; fail "cpack failed"; }
deb=$(ls "$WORK"/out/plaudit_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no plaudit_*.deb in $WORK/out"
echo "deb_test: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"

root=$WORK/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/plauditd lib/systemd/system/plauditd.service etc/plaudit/plaudit.toml \
         usr/share/man/man8/plauditd.8.gz usr/share/doc/plaudit/README.md \
         usr/share/doc/plaudit/operations.md usr/share/doc/plaudit/copyright \
         usr/share/doc/plaudit/examples/plaudit-alerts.yml; do
  [ -e "$root/$f" ] || fail "missing /$f"
done
[ -x "$root/usr/bin/plauditd" ] || fail "/usr/bin/plauditd is not executable"

# Control data: the config is a conffile; the libraries come from dpkg-shlibdeps.
dpkg-deb -e "$deb" "$WORK/control"
grep -qx /etc/plaudit/plaudit.toml "$WORK/control/conffiles" || fail "plaudit.toml is not a conffile"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libhiredis libsqlite3 libpq5 libmariadb3 libsodium libicu; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
[[ $(dpkg-deb -f "$deb" Recommends) == *redis-server* ]] || fail "redis-server not recommended"

# The binary from the scratch root; its version is the package's.
version=$("$root/usr/bin/plauditd" --version)
[[ $version == "plauditd $(dpkg-deb -f "$deb" Version)" ]] || fail "--version says '$version'"

# Every long flag of `serve` is a key of the config file, commented out; loading the file
# as it ships changes nothing (an empty config is accepted).
toml=$root/etc/plaudit/plaudit.toml
flags=$("$root/usr/bin/plauditd" --help | grep -oE '^  --[a-z0-9-]+' | sed 's/^  --//' |
        grep -vx -e help -e config -e version)
[ "$(echo "$flags" | wc -l)" -gt 30 ] || fail "too few flags in --help"
for flag in $flags; do
  grep -qE "^# ${flag}=" "$toml" || fail "plaudit.toml has no commented key for --$flag"
done
if grep -vE '^(#|$)' "$toml" | grep -q .; then fail "plaudit.toml sets something"; fi
"$root/usr/bin/plauditd" --config "$toml" config-example >/dev/null ||
  fail "the shipped plaudit.toml is refused"

# The man page names the program and its flags.
zcat "$root/usr/share/man/man8/plauditd.8.gz" | grep -q -- 'flush\\-interval\\-ms' ||
  fail "the man page lacks the flags"

# The unit: ExecStart's binary is in the scratch root; systemd-analyze checks the rest.
unit=$root/lib/systemd/system/plauditd.service
for key in DynamicUser=yes StateDirectory=plaudit ProtectSystem=strict NoNewPrivileges=yes \
           PrivateTmp=yes 'ExecStart=/usr/bin/plauditd serve --config /etc/plaudit/plaudit.toml'; do
  grep -q "^$key" "$unit" || fail "the unit lacks $key"
done
if command -v systemd-analyze >/dev/null; then
  # Against this machine's units (--root wants a whole system there), with ExecStart moved
  # into the scratch root; any output (an unknown key, a bad value) fails, though it exits 0.
  sed "s|^ExecStart=/usr/bin/plauditd|ExecStart=$root/usr/bin/plauditd|" "$unit" >"$WORK/plauditd.service"
  out=$(systemd-analyze verify --man=no "$WORK/plauditd.service" 2>&1) ||
    { echo "$out" >&2; fail "systemd-analyze verify"; }
  if [ -n "$out" ]; then echo "$out" >&2; fail "systemd-analyze verify printed warnings"; fi
  echo "deb_test: systemd-analyze verify: clean"
else
  echo "deb_test: systemd-analyze not installed: the unit not verified" >&2
fi
echo "deb_test: ok"
