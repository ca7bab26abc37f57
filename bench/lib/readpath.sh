# bench/run.sh's read path against nginx (issue 28), within step 2 (sourced; needs common.sh,
# scenarios.sh's run, nginx.sh, results.sh's field/row_of, and from run.sh: WORK, PORT,
# PAGE_ID, API, NGINX_*). The nginx rows, comment_page_304 and mixed_reads; what they found
# beyond their rows (body sizes, ETags, statuses, mixed_reads' counts and its consistency check)
# goes to the results' "read_path" object (read_path_json).
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

PAGE_PATH_QUERY() { echo "/api/v1/articles/$PAGE_ID/comments?sort=new&size=20&replies=3"; }
: >"${WORK:?}/skipped"
: >"$WORK/statuses"
: >"$WORK/readpath.json"

# skip_row NAME REASON: a scenario that did not run, with why (never a number)
skip_row() {
  printf '"%s":"%s"\n' "$1" "${2//\"/\'}" >>"$WORK/skipped"
  echo "$1: skipped: $2" >&2
}
readpath_fact() { printf '%s\n' "$1" >>"$WORK/readpath.json"; }  # '"key":value'

# statuses_of NAME → '{"304":N,"200":M}' from the "statuses:" line count_statuses printed
statuses_of() {
  awk '/^statuses:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); out = out (n++ ? "," : "") "\"" kv[1] "\":" kv[2] } }
       END { print "{" out "}" }' "$WORK/$1.txt"
}
# record_statuses NAME EXPECTED → WORK/statuses; warns when any answer had another status
record_statuses() {
  local st others
  st=$(statuses_of "$1")
  others=$(awk -v want="$2" '/^statuses:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] != want) n += kv[2] } } END { print n + 0 }' "$WORK/$1.txt")
  printf '"%s":{"counts":%s,"expected":%s,"other":%s}\n' "$1" "$st" "$2" "$others" >>"$WORK/statuses"
  [ "$others" = 0 ] || echo "$1: $others answers were not $2 ($st)" >&2
}

# nginx_row NAME page|list|304 PATH SCRIPT: one scenario on nginx, after writing plauditd's
# current answer into its file (article_get changes view counts in the list; a file rewritten
# gets a new nginx ETag, read again for the 304 row).
nginx_row() {
  local name=$1 kind=$2 path=$3 script=$4 dir=$WORK/nginx file bytes
  if [ -n "$NGINX_SKIP" ]; then
    skip_row "$name" "$NGINX_SKIP"
    return 0
  fi
  case $kind in
    list) file=$dir/root/article_list.json
          curl -fsS -o "$file.new" "http://127.0.0.1:$PORT/api/v1/articles?size=20" ;;
    *) file=$dir/root/comment_page.json
       curl -fsS -o "$file.new" "http://127.0.0.1:$PORT$(PAGE_PATH_QUERY)" ;;
  esac
  cmp -s "$file.new" "$file" || mv "$file.new" "$file"  # unchanged: keep its mtime, its ETag
  rm -f "$file.new"
  bytes=$(stat -c %s "$file")
  if [ "$kind" = 304 ]; then
    NGINX_ETAG=$(etag_of "http://127.0.0.1:$NGINX_PORT$(PAGE_PATH_QUERY)")
    if [ -z "$NGINX_ETAG" ]; then
      skip_row "$name" "nginx sent no ETag"
      return 0
    fi
    readpath_fact "\"nginx_etag\":\"${NGINX_ETAG//\"/\\\"}\""
    BENCH_ETAG=$NGINX_ETAG run "$name" "http://127.0.0.1:$NGINX_PORT$path" "$script"
    record_statuses "$name" 304
  else
    run "$name" "http://127.0.0.1:$NGINX_PORT$path" "$script"
  fi
  readpath_fact "\"${name}_body_bytes\":$bytes"
}

# run_304 NAME: the anonymous comment page with If-None-Match: <plauditd's own ETag> — a row
# only when plauditd sends an ETag (curl first); else skipped with the reason.
run_304() {
  local name=$1 url etag code
  url="http://127.0.0.1:$PORT$(PAGE_PATH_QUERY)"
  etag=$(etag_of "$url")
  if [ -z "$etag" ]; then
    skip_row "$name" "plauditd sent no ETag for the anonymous comment page (curl, $(date -u +%H:%MZ))"
    return 0
  fi
  code=$(status_of "$url" -H "If-None-Match: $etag")
  readpath_fact "\"plauditd_etag\":\"${etag//\"/\\\"}\""
  readpath_fact "\"plauditd_if_none_match_status\":$code"
  echo "$name: plauditd's ETag $etag; a GET with If-None-Match answered $code" >&2
  BENCH_ETAG=$etag run "$name" "http://127.0.0.1:$PORT/" bench/wrk/comment_page_304.lua
  record_statuses "$name" 304
}

# run_mixed: mixed_reads (bench/wrk/mixed_reads.lua, 90% anonymous page reads, 10% comment
# like changes on that page), then mixed_check → the read_path facts mixed_*
run_mixed() {
  local reads likes other secs
  run mixed_reads "http://127.0.0.1:$PORT/" bench/wrk/mixed_reads.lua
  read -r reads likes other secs < <(awk '/^mixed:/ { print $3, $5, $7, $9 }' "$WORK/mixed_reads.txt")
  MIXED_READS_RPS=$(awk -v n="${reads:-0}" -v s="${secs:-0}" 'BEGIN { if (s > 0) printf "%.2f", n / s; else print "null" }')
  MIXED_LIKES_RPS=$(awk -v n="${likes:-0}" -v s="${secs:-0}" 'BEGIN { if (s > 0) printf "%.2f", n / s; else print "null" }')
  readpath_fact "\"mixed_reads\":${reads:-null},\"mixed_likes\":${likes:-null},\"mixed_other\":${other:-null},\"mixed_seconds\":${secs:-null},\"mixed_reads_per_s\":$MIXED_READS_RPS,\"mixed_likes_per_s\":$MIXED_LIKES_RPS"
  echo "mixed_reads: $MIXED_READS_RPS reads/s and $MIXED_LIKES_RPS like changes/s ($reads reads, $likes likes, $other other answers in $secs s)" >&2
  mixed_check
}

# mixed_check → MIXED_CHECK ("pass" or "fail: …"), after mixed_reads and its probes changed
# the page's comment likes: for each of the page's comments (top-level and replies), its
# likeCount in the anonymous page, the likeCount of GET /api/v1/comments/{id}/like, and the
# number of the 1,000 seeded users whose GET /api/v1/likes?comment=<the page's ids> says
# liked, must all be equal.
mixed_check() {
  local ids conf=$WORK/mixed_check
  ids=$(paste -sd, "$WORK/page_comment_ids.txt")
  sleep 1.2  # one flush period: the check must hold after the write-behind pass too
  awk -v url="$API/likes?comment=$ids" '{ if (NR > 1) print "next"
      print "url = \"" url "\""; print "header = \"Authorization: Bearer " $1 "\""
      print "write-out = \"\\n\"" }' "$WORK/tokens.txt" >"$conf.users.conf"
  awk -v api="$API" -v token="$(head -1 "$WORK/tokens.txt")" '{ if (NR > 1) print "next"
      print "url = \"" api "/comments/" $1 "/like\""; print "header = \"Authorization: Bearer " token "\""
      print "write-out = \"\\n\"" }' "$WORK/page_comment_ids.txt" >"$conf.each.conf"
  curl -sS -K "$conf.users.conf" >"$conf.users.out" || true
  curl -sS -K "$conf.each.conf" >"$conf.each.out" || true
  curl -sS "http://127.0.0.1:$PORT$(PAGE_PATH_QUERY)" >"$conf.page.out" || true
  MIXED_CHECK=$(python3 - "$WORK/page_comment_ids.txt" "$conf.users.out" "$conf.each.out" "$conf.page.out" <<'PY'
import json, sys
ids = [l.strip() for l in open(sys.argv[1]) if l.strip()]
users = {i: 0 for i in ids}
answers = 0
for line in open(sys.argv[2]):
    line = line.strip()
    if not line:
        continue
    try:
        states = json.loads(line)["comment"]
    except (ValueError, KeyError):
        continue
    answers += 1
    for i in ids:
        if states.get(i, {}).get("liked"):
            users[i] += 1
each = {}
for i, line in zip(ids, [l for l in open(sys.argv[3]) if l.strip()]):
    try:
        each[i] = json.loads(line)["likeCount"]
    except (ValueError, KeyError):
        each[i] = None
page = {}
try:
    for c in json.load(open(sys.argv[4]))["items"]:
        page[str(c["id"])] = c["likeCount"]
        for r in c.get("replies") or []:
            page[str(r["id"])] = r["likeCount"]
except (ValueError, KeyError):
    pass
bad = [f"comment {i}: page {page.get(i)}, like endpoint {each.get(i)}, users {users[i]}"
       for i in ids if not (page.get(i) == each.get(i) == users[i])]
if answers != 1000:
    bad.insert(0, f"{answers} of 1000 users' like states read")
total = sum(users.values())
if bad:
    print(f"fail: {len(bad)} of {len(ids)} comments disagree ({'; '.join(bad[:3])})")
else:
    print(f"pass: {len(ids)} comments, {total} likes, page = like endpoint = users who liked")
PY
)
  echo "mixed_reads check: $MIXED_CHECK" >&2
  readpath_fact "\"mixed_check\":\"${MIXED_CHECK//\"/\'}\",\"mixed_check_pass\":$([[ $MIXED_CHECK == pass* ]] && echo true || echo false)"
}

# read_path_json → the results' "read_path" object
read_path_json() {
  {
    echo "{\"nginx_version\":\"${NGINX_VERSION:-}\",\"nginx_skipped\":\"${NGINX_SKIP:-}\","
    echo "\"comment_page_path\":\"$(PAGE_PATH_QUERY)\",\"article_list_path\":\"/api/v1/articles?size=20\","
    echo "\"duration\":\"$DUR\",\"like_comments\":${N_LIKE_COMMENTS:-null},\"comment_hot_id\":${COMMENT_HOT_ID:-null},\"page_comments\":${N_PAGE_COMMENTS:-null},"
    [ -s "$WORK/readpath.json" ] && { paste -sd, "$WORK/readpath.json"; echo ","; }
    echo "\"statuses\":{$(paste -sd, "$WORK/statuses")},"
    echo "\"skipped\":{$(paste -sd, "$WORK/skipped")}}"
  }
}
