#!/usr/bin/env bash
# The Prometheus alert rules (issue 49; packaging/prometheus/plaudit-alerts.yml, described in
# docs/operations.md "Monitoring"), checked with promtool from Debian's prometheus package:
# - `promtool check rules`: the file loads and every expression parses;
# - `promtool test rules` with tests/package/plaudit-alerts.test.yml: synthetic series, alerts
#   that must fire (labels and rendered annotations compared) and alerts that must not;
# - every alert has `for:`, a severity, a summary and a description (promtool needs none);
# - every plaudit_* name in the rules and in operations.md's "Monitoring" is one plauditd
#   registers (src/http/metrics.cpp): an alert on a renamed metric would never fire, silently.
#   bash tests/package/alert_rules_test.sh [RULES_FILE]   (default: the packaged file)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RULES=$(realpath "${1:-$ROOT/packaging/prometheus/plaudit-alerts.yml}")
fail() { echo "alert_rules_test: $*" >&2; exit 1; }
command -v promtool >/dev/null ||
  fail "no promtool: it comes with Debian's prometheus package (scripts/install-deps.sh)"

WORK=$(mktemp -d /tmp/plaudit-alerts-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# The unit tests name the rules by their repo path relative to themselves: lay both out the
# same way here, so that a RULES_FILE given as argument is the one tested.
mkdir -p "$WORK/packaging/prometheus" "$WORK/tests/package"
cp "$RULES" "$WORK/packaging/prometheus/plaudit-alerts.yml"
cp "$ROOT/tests/package/plaudit-alerts.test.yml" "$WORK/tests/package/"

promtool check rules "$WORK/packaging/prometheus/plaudit-alerts.yml" ||
  fail "promtool check rules failed"
promtool test rules "$WORK/tests/package/plaudit-alerts.test.yml" ||
  fail "promtool test rules failed"

alerts=$(grep -cE '^ *- alert: ' "$RULES")
[ "$alerts" -ge 5 ] || fail "only $alerts alerts in $RULES"
for key in 'for' 'severity' 'summary' 'description'; do
  n=$(grep -cE "^ *${key}: " "$RULES")
  [ "$n" -eq "$alerts" ] || fail "$alerts alerts but $n with '$key:'"
done

# Histograms are queried by their series (_bucket, _sum, _count); the family is registered.
monitoring=$(awk '/^## Monitoring/ {on = 1; next} /^## / {on = 0} on' "$ROOT/docs/operations.md")
[ -n "$monitoring" ] || fail "docs/operations.md has no \"## Monitoring\" section"
names=$( { cat "$RULES"; echo "$monitoring"; } | grep -oE 'plaudit_[a-z0-9_]+' |
         sed -E 's/_(bucket|sum|count)$//' | sort -u)
[ -n "$names" ] || fail "no plaudit_* metric named in the rules or the docs"
for name in $names; do
  grep -q "\"$name\"" "$ROOT/src/http/metrics.cpp" ||
    fail "$name is not a metric plauditd registers (src/http/metrics.cpp)"
done
echo "alert_rules_test: $alerts alerts; $(echo "$names" | wc -l) metric names, all registered"
