# Seeding plauditd through its API with curl (sourced by bench/run.sh and bench/ab.sh, after
# common.sh). API (http://127.0.0.1:PORT/api/v1) names the instance; WORK is a scratch
# directory. The write paths are the API's own, so the data is what real clients leave.
# shellcheck shell=bash

json_tokens() { grep -oE '"token":"[^"]+"' | cut -d'"' -f4; }
json_token() { json_tokens | head -1; }
json_id() { sed -nE 's/^\{"id":([0-9]+).*/\1/p'; }

post_json() {  # path body [token]
  curl -fsS -X POST -H 'Content-Type: application/json' ${3:+-H "Authorization: Bearer $3"} \
    -d "$2" "$API$1"
}

# curl_posts PATH [TOKEN] < bodies (one JSON body a line, no backslashes) → one response a
# line on stdout, in input order: curl_posts_to with the same PATH on every line.
curl_posts() {
  local path=$1 token=${2:-}
  awk -v path="$path" '{ print path " " $0 }' | curl_posts_to "$token"
}

# seed_author → AUTHOR_ID, AUTHOR_TOKEN: user 'bench', made an author by the bootstrap admin.
seed_author() {
  local admin
  admin=$(post_json /sessions '{"username":"benchadmin","password":"benchpassword"}' | json_token)
  AUTHOR_ID=$(post_json /users '{"username":"bench","password":"bench-password"}' | json_id)
  curl -fsS -o /dev/null -X PATCH -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $admin" -d '{"role":"author"}' "$API/users/$AUTHOR_ID"
  AUTHOR_TOKEN=$(post_json /sessions '{"username":"bench","password":"bench-password"}' | json_token)
}

# seed_users DIR: users benchuser1 … benchuser1000 (DIR/users.jsonl), one session each, their
# tokens in DIR/tokens.txt in user order.
seed_users() {
  seq 1 1000 | awk '{printf "{\"username\":\"benchuser%d\",\"password\":\"bench-password-%d\"}\n", $1, $1}' \
    >"$1/users.jsonl"
  curl_posts /users <"$1/users.jsonl" >"$1/users.out"
  curl_posts /sessions <"$1/users.jsonl" | json_tokens >"$1/tokens.txt"
}

# like_comments TOKENS COMMENT_IDS → how many likes took: the k-th comment liked by users
# 1 .. k % 5 (0-4 likes, so that the hot order differs from the new one), one curl, one
# keep-alive connection.
like_comments() {
  awk -v api="$API" 'FNR == NR { tok[FNR] = $1; next }
    { for (u = 1; u <= FNR % 5; u++) {
        if (n++) print "next"
        print "url = \"" api "/comments/" $1 "/like\""
        print "request = \"PUT\""
        print "header = \"Authorization: Bearer " tok[u] "\""
        print "write-out = \"\\n\""
      } }' <(head -4 "$1") "$2" >"$WORK/clikes.conf"
  curl -sS -K "$WORK/clikes.conf" | grep -c '"liked":true' || true
}

# bench/run.sh's step 1, articles: 1 author, 200 published articles, 1,000 users with one
# session each, then one like by hand (the seeded data must work before it is measured) →
# WORK/ids.txt (sorted), WORK/tokens.txt, HOT_ID (the first id), N_IDS, N_TOKENS, SEED_SECS.
seed_articles() {
  local start=$SECONDS para body i check
  seed_author
  # ~1.6 KB of HTML per article, like a short post (single-quoted attributes: no JSON escapes).
  para="<p>Plaudit benchmark article body: a paragraph of ordinary prose with <em>some</em> markup and a <a href='https://example.com/x'>link</a>, repeated.</p>"
  body=$(for _ in $(seq 1 10); do printf '%s' "$para"; done)
  for i in $(seq 1 200); do
    printf '{"title":"Bench article %d","content":"%s","status":"published"}\n' "$i" "$body"
  done | curl_posts /articles "$AUTHOR_TOKEN" | json_id | sort -n >"$WORK/ids.txt"
  seed_users "$WORK"
  SEED_SECS=$((SECONDS - start))
  N_IDS=$(grep -c . "$WORK/ids.txt" || true)
  N_TOKENS=$(grep -c . "$WORK/tokens.txt" || true)
  if [ "$N_IDS" -ne 200 ] || [ "$N_TOKENS" -ne 1000 ]; then
    echo "seeding failed: $N_IDS articles, $N_TOKENS tokens" >&2
    exit 1
  fi
  HOT_ID=$(head -1 "$WORK/ids.txt")
  check=$(curl -fsS -X PUT -H "Authorization: Bearer $(head -1 "$WORK/tokens.txt")" \
    "$API/articles/$HOT_ID/like")
  grep -q '"liked":true' <<<"$check" || { echo "like check failed: $check" >&2; exit 1; }
  echo "seeded 1 author, $N_IDS articles, $N_TOKENS users with sessions in ${SEED_SECS}s" >&2
}

new_article() {  # TITLE → id of a new published article by the author
  post_json /articles "{\"title\":\"$1\",\"content\":\"<p>$1</p>\",\"status\":\"published\"}" \
    "$AUTHOR_TOKEN" | json_id
}

# bench/run.sh's step 1, comments: three more published articles. PAGE_ID gets one comment
# page (20 top-level comments by user 1, 3 replies each by user 2, 40 comment likes); CREATE_ID
# takes comment_create's writes; DEEP_ID is left untouched (its comment cache never built)
# until the deep-page step bulk-loads it in SQLite. → WORK/comment_ids.txt, N_COMMENTS,
# N_REPLIES, N_CLIKES, CSEED_SECS; checked by reading the page back in both orders.
# 50 page threads of the bench site (plauditd runs with --sites http://bench.example), one
# comment each, through POST /pages/comments → WORK/counts_path.txt: the counts call for all
# 50 (GET /api/v1/pages/counts?url=…×50, what an index page's count.js sends), N_PAGES.
seed_pages() {
  local i
  for i in $(seq 1 50); do
    curl -fsS -X POST -H "Authorization: Bearer $(sed -n 1p "$WORK/tokens.txt")" \
      -H 'Content-Type: application/json' -d "{\"body\":\"Page comment $i\",\"title\":\"Bench page $i\"}" \
      "$API/pages/comments?url=http%3A%2F%2Fbench.example%2Fposts%2F$i" >/dev/null || true
  done
  printf '/api/v1/pages/counts?%s' "$(seq 1 50 | awk '{ printf "%surl=http%%3A%%2F%%2Fbench.example%%2Fposts%%2F%d", (NR > 1 ? "&" : ""), $1 }')" \
    >"$WORK/counts_path.txt"
  N_PAGES=$(curl -fsS "http://127.0.0.1:$PORT$(cat "$WORK/counts_path.txt")" | grep -o '"commentCount":1' | wc -l)
  if [ "$N_PAGES" -ne 50 ]; then
    echo "page seeding failed: $N_PAGES of 50 pages have their comment" >&2
    exit 1
  fi
}

seed_comments() {
  local start=$SECONDS check hot_counts
  PAGE_ID=$(new_article "Bench comment page")
  CREATE_ID=$(new_article "Bench comment writes")
  DEEP_ID=$(new_article "Bench deep comments")
  seq 1 20 | awk '{ printf "{\"body\":\"Top-level comment %d: a sentence or two of ordinary reader feedback on the article.\"}\n", $1 }' |
    curl_posts "/articles/$PAGE_ID/comments" "$(sed -n 1p "$WORK/tokens.txt")" | json_id \
    >"$WORK/comment_ids.txt"
  awk '{ for (r = 1; r <= 3; r++) printf "{\"body\":\"Reply %d to comment %s: a short answer.\",\"parentId\":%s}\n", r, $1, $1 }' \
    "$WORK/comment_ids.txt" | curl_posts "/articles/$PAGE_ID/comments" "$(sed -n 2p "$WORK/tokens.txt")" |
    grep -c '"parentId":[0-9]' >"$WORK/replies.count" || true
  N_CLIKES=$(like_comments "$WORK/tokens.txt" "$WORK/comment_ids.txt")
  N_COMMENTS=$(grep -c . "$WORK/comment_ids.txt" || true)
  N_REPLIES=$(cat "$WORK/replies.count")
  if [ -z "$PAGE_ID" ] || [ -z "$CREATE_ID" ] || [ -z "$DEEP_ID" ] || [ "$N_COMMENTS" -ne 20 ] ||
    [ "$N_REPLIES" -ne 60 ] || [ "$N_CLIKES" -ne 40 ]; then
    echo "comment seeding failed: articles '$PAGE_ID' '$CREATE_ID' '$DEEP_ID', $N_COMMENTS comments, $N_REPLIES replies, $N_CLIKES likes" >&2
    exit 1
  fi
  check=$(curl -fsS "$API/articles/$PAGE_ID/comments?sort=new&size=20&replies=3")
  if [ "$(grep -o '"parentId":[0-9]' <<<"$check" | wc -l)" -ne 60 ] ||
    ! grep -q '"total":20' <<<"$check"; then
    echo "comment page check failed: ${check:0:300}" >&2
    exit 1
  fi
  # hot: the top-level like counts (the first likeCount after each "parentId":null) must run
  # 4,4,4,4,3,… down to 0, 40 in all.
  hot_counts=$(curl -fsS "$API/articles/$PAGE_ID/comments?sort=hot&size=20&replies=3" |
    sed 's/"parentId":null/\n/g' | tail -n +2 |
    awk 'match($0, /"likeCount":[0-9]+/) { print substr($0, RSTART + 12, RLENGTH - 12) }' | paste -sd' ')
  if [ "$hot_counts" != "4 4 4 4 3 3 3 3 2 2 2 2 1 1 1 1 0 0 0 0" ]; then
    echo "hot order check failed: top-level like counts $hot_counts" >&2
    exit 1
  fi
  CSEED_SECS=$((SECONDS - start))
  echo "seeded article $PAGE_ID with $N_COMMENTS comments, $N_REPLIES replies, $N_CLIKES comment likes in ${CSEED_SECS}s" >&2
}

# curl_posts_to TOKEN < "PATH BODY" lines (BODY: JSON, no backslashes) → one response a line,
# in input order. 4 curl processes in parallel, each sending its share of the requests on one
# keep-alive connection (curl -K config with `next`).
curl_posts_to() {
  local token=$1 chunk curls=()
  cat >"$WORK/postto.in"
  split -n l/4 -d "$WORK/postto.in" "$WORK/postto."
  for chunk in "$WORK"/postto.0[0-3]; do
    awk -v api="$API" -v token="$token" '{
      path = $1; body = substr($0, length($1) + 2)
      gsub(/"/, "\\\"", body)
      if (NR > 1) print "next"
      print "url = \"" api path "\""
      print "request = \"POST\""
      print "fail"
      print "header = \"Content-Type: application/json\""
      if (token != "") print "header = \"Authorization: Bearer " token "\""
      print "data = \"" body "\""
      print "write-out = \"\\n\""
    }' "$chunk" >"$chunk.conf"
    curl -sS -K "$chunk.conf" >"$chunk.out" &
    curls+=($!)
  done
  wait "${curls[@]}" || true  # failures show as missing lines, counted by the callers
  cat "$WORK"/postto.0[0-3].out
  rm -f "$WORK"/postto.*
}

# seed_like_comments IDS_FILE TOKENS_FILE OUT_FILE → the targets of comment_like_put_spread
# and comment_like_put_hot: 5 top-level comments on each article of IDS_FILE (by user 3 of
# TOKENS_FILE), their ids in OUT_FILE (article by article); COMMENT_HOT_ID (the first),
# N_LIKE_COMMENTS, LCSEED_SECS. Checked: all made, and one comment like by hand.
seed_like_comments() {
  local start=$SECONDS want check
  awk '{ for (k = 1; k <= 5; k++) printf "/articles/%s/comments {\"body\":\"Comment %d on article %s, a target for the comment like scenarios.\"}\n", $1, k, $1 }' \
    "$1" | curl_posts_to "$(sed -n 3p "$2")" | json_id >"$3"
  N_LIKE_COMMENTS=$(grep -c . "$3" || true)
  want=$(($(grep -c . "$1") * 5))
  COMMENT_HOT_ID=$(head -1 "$3")
  if [ "$N_LIKE_COMMENTS" -ne "$want" ] || [ -z "$COMMENT_HOT_ID" ]; then
    echo "comment seeding for the comment likes failed: $N_LIKE_COMMENTS of $want comments" >&2
    exit 1
  fi
  check=$(curl -fsS -X PUT -H "Authorization: Bearer $(head -1 "$2")" "$API/comments/$COMMENT_HOT_ID/like")
  grep -q '"liked":true' <<<"$check" || { echo "comment like check failed: $check" >&2; exit 1; }
  LCSEED_SECS=$((SECONDS - start))
  echo "seeded $N_LIKE_COMMENTS comments (5 on each article) for the comment likes in ${LCSEED_SECS}s" >&2
}

# page_comment_ids ARTICLE OUT_FILE → every comment id of the article's first page (sort=new,
# size=20, replies=3: top-level and replies) in OUT_FILE; N_PAGE_COMMENTS
page_comment_ids() {
  curl -fsS "$API/articles/$1/comments?sort=new&size=20&replies=3" | python3 -c '
import json, sys
for c in json.load(sys.stdin)["items"]:
    print(c["id"])
    for r in c.get("replies") or []:
        print(r["id"])' >"$2"
  # shellcheck disable=SC2034  # read by readpath.sh (the results' read_path)
  N_PAGE_COMMENTS=$(grep -c . "$2" || true)
}
