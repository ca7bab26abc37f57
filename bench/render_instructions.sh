#!/usr/bin/env bash
# Instructions per rendered comment page, counted by callgrind (repeatable where req/s on the
# shared 2-core box is not; see bench/instructions.sh). plauditd from BUILD_DIR runs under
# `valgrind --tool=callgrind` with --page-cache-mb 0, on a fresh data dir seeded through the
# API with bench/run.sh's comment page (20 top-level comments × 3 replies, 40 comment likes;
# 10 users); then, instrumented, bench/wrk/comment_page_render.lua (every request a page key
# of its own: a render each) with `wrk -t1 -c4` for RENDER_DURATION (default 10s).
# Usage: bench/render_instructions.sh BUILD_DIR → "render_instr_per_req=N requests=N"
# Needs valgrind, wrk, curl.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$1
DUR=${RENDER_DURATION:-10s}
WORK=$(mktemp -d /tmp/plaudit-render-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
source bench/lib/common.sh  # start_plauditd
source bench/lib/seed.sh    # seed_author, curl_posts, post_json, like_comments

printf '#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=%s/cg.%%p %s "$@"\n' \
  "$WORK" "$(realpath "$BUILD")/plauditd" >"$WORK/plauditd"
chmod +x "$WORK/plauditd"
start_plauditd "$WORK/plauditd" "$WORK/data" "$WORK/plauditd.log" --page-cache-mb 0
API=http://127.0.0.1:$PLAUDITD_PORT/api/v1
seed_author
seq 1 10 | awk '{printf "{\"username\":\"benchuser%d\",\"password\":\"bench-password-%d\"}\n", $1, $1}' \
  >"$WORK/users.jsonl"
curl_posts /users <"$WORK/users.jsonl" >/dev/null
curl_posts /sessions <"$WORK/users.jsonl" | json_tokens >"$WORK/tokens.txt"
page=$(post_json /articles '{"title":"Bench comment page","content":"<p>c</p>","status":"published"}' \
  "$AUTHOR_TOKEN" | json_id)
seq 1 20 | awk '{ printf "{\"body\":\"Top-level comment %d: a sentence or two of ordinary reader feedback on the article.\"}\n", $1 }' |
  curl_posts "/articles/$page/comments" "$(sed -n 1p "$WORK/tokens.txt")" | json_id >"$WORK/comment_ids.txt"
awk '{ for (r = 1; r <= 3; r++) printf "{\"body\":\"Reply %d to comment %s: a short answer.\",\"parentId\":%s}\n", r, $1, $1 }' \
  "$WORK/comment_ids.txt" | curl_posts "/articles/$page/comments" "$(sed -n 2p "$WORK/tokens.txt")" >/dev/null
like_comments "$WORK/tokens.txt" "$WORK/comment_ids.txt" >/dev/null
replies=$(curl -fsS "$API/articles/$page/comments?sort=new&size=20&replies=3" | grep -o '"parentId":[0-9]' | wc -l)
[ "$replies" -eq 60 ] || { echo "seeding failed: $replies replies on the page" >&2; exit 1; }

callgrind_control -i on "$PLAUDITD_PID" >/dev/null 2>&1
requests=$(BENCH_WRK_DIR=$ROOT/bench/wrk BENCH_PAGE_ID=$page \
  wrk -t1 -c4 -d"$DUR" -s bench/wrk/comment_page_render.lua "http://127.0.0.1:$PLAUDITD_PORT/" |
  awk '/requests in/ { print $1 }')
callgrind_control -d "$PLAUDITD_PID" >/dev/null 2>&1
callgrind_control -i off "$PLAUDITD_PID" >/dev/null 2>&1
out=$(ls -S "$WORK"/cg.*.* | head -1)
instr=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
echo "render_instr_per_req=$((instr / requests)) requests=$requests"
