#!/bin/bash
# Where comment_create's time goes (issue 47): one plauditd (embedded Redis + SQLite, a data
# dir in a fresh temp dir on the disk of /tmp), 64 signed-in users posting top-level comments
# on one article with `wrk -t1 -c64` for DUR, and around the run: plauditd's and its Redis's
# CPU, /metrics deltas (request, Redis command and SQL call latencies; jobs per group commit)
# and, with STATS=1, Redis's INFO commandstats (calls made inside scripts included); with
# TRACE=1, every fsync/fdatasync by file (strace slows the run: read the counts, not the rate).
#   bash bench/comment_create_profile.sh            # BIN=build/plauditd DUR=10s
#   BIN=/tmp/plauditd-old STATS=1 bash bench/comment_create_profile.sh
#   EXTRA="--database postgresql://…" bash bench/comment_create_profile.sh   # another database
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-build/plauditd}; DUR=${DUR:-10s}; TRACE=${TRACE:-0}; STATS=${STATS:-}; EXTRA=${EXTRA:-}
W=$(mktemp -d /tmp/plaudit-profile-XXXX); mkdir "$W/data"
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$W"' EXIT
"$BIN" --data-dir "$W/data" --port 0 --rate-limits off --password-hash minimal \
  --bootstrap-admin benchadmin:benchpassword --metrics-allow 127.0.0.1 $EXTRA > "$W/log" 2>&1 &
PID=$!
port=
for _ in $(seq 1 100); do
  port=$(grep -oE 'listening on http://127.0.0.1:[0-9]+' "$W/log" | grep -oE '[0-9]+$' | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "plauditd did not start:" >&2; cat "$W/log" >&2; exit 1; }
A=http://127.0.0.1:$port/api/v1
j() { curl -sf -H 'Content-Type: application/json' "$@"; }
token() { python3 -c 'import json,sys;print(json.load(sys.stdin)["token"])'; }
tok=$(j -d '{"username":"benchadmin","password":"benchpassword"}' "$A/sessions" | token)
aid=$(j -H "Authorization: Bearer $tok" \
  -d '{"title":"profile","content":"<p>x</p>","status":"published"}' "$A/articles" |
  python3 -c 'import json,sys;print(json.load(sys.stdin)["id"])')
for i in $(seq 1 64); do
  j -d "{\"username\":\"bench$i\",\"password\":\"password-$i-long\"}" "$A/users" >/dev/null
  j -d "{\"username\":\"bench$i\",\"password\":\"password-$i-long\"}" "$A/sessions" | token
done > "$W/tokens"
echo "users: $(wc -l < "$W/tokens"), article $aid"
SOCK=$(find "$W/data" -name '*.sock' | head -1)
curl -s "http://127.0.0.1:$port/metrics" > "$W/m0"
[ -n "$STATS" ] && redis-cli -s "$SOCK" CONFIG RESETSTAT >/dev/null
RPID=$(pgrep -P $PID redis-server | head -1)
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
c0=$(cpu $PID); r0=$(cpu "$RPID"); t0=$(date +%s.%N)
if [ "$TRACE" = 1 ]; then
  strace -f -qq --seccomp-bpf -e trace=fsync,fdatasync -T -y -p $PID -o "$W/strace" 2>/dev/null &
  SPID=$!; sleep 1
fi
BENCH_WRK_DIR=bench/wrk BENCH_TOKENS=$W/tokens BENCH_CREATE_ID=$aid \
  wrk -t1 -c64 -d"$DUR" --latency -s bench/wrk/comment_create.lua "http://127.0.0.1:$port" |
  grep -E "Requests/sec|50%|90%|99%|Non-2xx|requests in"
[ "$TRACE" = 1 ] && { kill -INT $SPID; wait $SPID 2>/dev/null; }
c1=$(cpu $PID); r1=$(cpu "$RPID"); t1=$(date +%s.%N)
python3 -c "d=$t1-$t0; print('CPU %% of one core: plauditd %.0f, its redis-server %.0f' % (($c1-$c0)/d, ($r1-$r0)/d))"
curl -s "http://127.0.0.1:$port/metrics" > "$W/m1"
python3 - "$W/m0" "$W/m1" <<'PY'
import collections, re, sys
def parse(p):
    d = {}
    for l in open(p):
        if l.startswith('#') or not l.strip():
            continue
        k, v = l.rsplit(' ', 1)
        d[k] = float(v)
    return d
a, b = parse(sys.argv[1]), parse(sys.argv[2])
hist = collections.defaultdict(dict)
for k in b:
    m = re.match(r'(plaudit_\w+?)_(bucket|count|sum)(\{.*\})?$', k)
    if not m or not (m.group(1).endswith('_seconds') or m.group(1).endswith('_jobs')):
        continue
    name, kind, labels = m.group(1), m.group(2), m.group(3) or ''
    le = re.search(r'le="([^"]+)"', labels)
    base = re.sub(r'le="[^"]+",?', '', labels).replace(',}', '}').replace('{}', '')
    dv = b[k] - a.get(k, 0)
    if kind == 'bucket':
        hist[(name, base)].setdefault('b', []).append(
            (float(le.group(1)) if le.group(1) != '+Inf' else float('inf'), dv))
    else:
        hist[(name, base)][kind] = dv
for (name, base), h in sorted(hist.items()):
    n = h.get('count', 0)
    if n < 50 or 'b' not in h:
        continue
    bs = sorted(h['b'])
    def q(p):
        for le, c in bs:
            if c >= p * n:
                return le
    if name.endswith('_jobs'):
        print(f"{name}: {n:.0f} commits, mean {h['sum'] / n:.1f} jobs, p50 <= {q(.5):g}, p99 <= {q(.99):g}")
    else:
        print(f"{name}{base}: n={n:.0f} mean={h['sum'] / n * 1000:.2f}ms "
              f"p50<={q(.5) * 1000:.1f}ms p99<={q(.99) * 1000:.1f}ms")
PY
if [ -n "$STATS" ]; then
  redis-cli -s "$SOCK" INFO commandstats | grep cmdstat | sort -t= -k2 -rn | head -15
fi
if [ "$TRACE" = 1 ]; then
  python3 - "$W/strace" <<'PY'
import collections, re, sys
c = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.search(r'(fsync|fdatasync)\(\d+<([^>]*)>\).*<([\d.]+)>', l)
    if m:
        c[(m.group(1), m.group(2).split('/')[-1])].append(float(m.group(3)) * 1000)
for k, v in sorted(c.items()):
    v.sort()
    print(k, len(v), 'p50 %.2f ms p99 %.2f max %.2f' % (v[len(v) // 2], v[int(len(v) * .99)], v[-1]))
PY
fi
