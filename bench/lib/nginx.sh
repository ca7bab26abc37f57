# bench/run.sh's nginx reference for the read path (issue 28: "read pages as fast as static
# files"), sourced; needs common.sh, and from run.sh: WORK, PORT, PAGE_ID, pids. Debian's
# nginx binary (scripts/install-deps.sh installs the package; its system service is neither
# started nor used), run by the bench itself: its own prefix and config under WORK/nginx,
# `daemon off`, `worker_processes 1`, no access log, listening on a free port of 127.0.0.1.
# It serves, as static files, the exact bytes plauditd answered (curl, after seeding) for the
# anonymous comment page and the anonymous article list, at the same paths, so the same wrk
# scripts send the same requests (path and query) to both servers:
#   /api/v1/articles/PAGE_ID/comments  (exact location, alias → comment_page.json; nginx
#                                       ignores the query string ?sort=new&size=20&replies=3)
#   /api/v1/articles                   (exact location, alias → article_list.json; ?size=20)
# Content-Type as plauditd sends it: application/json; charset=utf-8. keepalive_requests is
# raised so that, like plauditd, nginx never closes a wrk connection (its default closes one
# after 1,000 requests, and the reconnects would be part of its figure). ETag and 304 are
# nginx's own (etag on: mtime and size; If-None-Match answered by its not-modified filter).
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

free_port() {  # → a TCP port of 127.0.0.1 that was free a moment ago
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# etag_of URL [curl options…] → the ETag header's value of a GET (empty when there is none)
etag_of() {
  local url=$1
  shift
  curl -sS -o /dev/null -D - "$@" "$url" | tr -d '\r' |
    awk -F': ' 'tolower($1) == "etag" { sub(/^[^:]*: */, ""); print; exit }'
}
# status_of URL [curl options…] → the HTTP status of a GET
status_of() { local url=$1; shift; curl -sS -o /dev/null -w '%{http_code}' "$@" "$url"; }

# start_nginx → NGINX_PORT, NGINX_PID, NGINX_VERSION, NGINX_COMMENT_BYTES,
# NGINX_LIST_BYTES, NGINX_ETAG; or NGINX_SKIP (the reason) when there is no nginx binary.
start_nginx() {
  local dir=$WORK/nginx bin site=http://127.0.0.1:$PORT try
  NGINX_SKIP=""
  bin=$(command -v nginx || ls /usr/sbin/nginx 2>/dev/null || true)
  if [ -z "$bin" ]; then
    NGINX_SKIP="nginx is not installed (bash scripts/install-deps.sh)"
    echo "nginx reference skipped: $NGINX_SKIP" >&2
    return 0
  fi
  NGINX_VERSION=$("$bin" -v 2>&1 | sed -n 's|.*nginx/||p')
  mkdir -p "$dir/root" "$dir/tmp" "$dir/logs"
  # The bytes plauditd answers to the anonymous requests of comment_page_anon and article_list.
  curl -fsS -o "$dir/root/comment_page.json" "$site/api/v1/articles/$PAGE_ID/comments?sort=new&size=20&replies=3"
  curl -fsS -o "$dir/root/article_list.json" "$site/api/v1/articles?size=20"
  NGINX_COMMENT_BYTES=$(stat -c %s "$dir/root/comment_page.json")
  NGINX_LIST_BYTES=$(stat -c %s "$dir/root/article_list.json")
  for try in 1 2 3; do
    NGINX_PORT=$(free_port)
    cat >"$dir/nginx.conf" <<CONF
user $(id -un);
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000000;
  keepalive_timeout 75s;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  types { }
  default_type application/json;
  charset utf-8;
  charset_types application/json;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    server_name _;
    location = /api/v1/articles/$PAGE_ID/comments { alias $dir/root/comment_page.json; }
    location = /api/v1/articles { alias $dir/root/article_list.json; }
  }
}
CONF
    "$bin" -p "$dir" -e "$dir/logs/error.log" -c "$dir/nginx.conf" >"$dir/logs/stderr.log" 2>&1 &
    NGINX_PID=$!
    pids+=("$NGINX_PID")
    for _ in $(seq 1 100); do
      curl -fsS -o /dev/null "http://127.0.0.1:$NGINX_PORT/api/v1/articles?size=20" 2>/dev/null && break
      kill -0 "$NGINX_PID" 2>/dev/null || break
      sleep 0.05
    done
    if curl -fsS -o "$dir/check.json" "http://127.0.0.1:$NGINX_PORT/api/v1/articles/$PAGE_ID/comments?sort=new&size=20&replies=3"; then
      break
    fi
    echo "nginx did not start on port $NGINX_PORT (try $try):" >&2
    cat "$dir/logs/stderr.log" "$dir/logs/error.log" >&2 || true
    kill "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
    forget_pid "$NGINX_PID"
    NGINX_PID=
  done
  if [ -z "$NGINX_PID" ]; then
    NGINX_SKIP="nginx did not start (see the output of make bench)"
    return 0
  fi
  if ! cmp -s "$dir/check.json" "$dir/root/comment_page.json"; then
    echo "nginx serves other bytes than plauditd's comment page" >&2
    exit 1
  fi
  NGINX_ETAG=$(etag_of "http://127.0.0.1:$NGINX_PORT/api/v1/articles/$PAGE_ID/comments?sort=new&size=20&replies=3")
  echo "nginx $NGINX_VERSION on port $NGINX_PORT: comment page $NGINX_COMMENT_BYTES bytes (ETag $NGINX_ETAG), article list $NGINX_LIST_BYTES bytes" >&2
}

stop_nginx() {
  [ -n "${NGINX_PID:-}" ] || return 0
  kill -QUIT "$NGINX_PID" 2>/dev/null || true  # graceful: the master and its worker
  wait "$NGINX_PID" 2>/dev/null || true
  forget_pid "$NGINX_PID"
  NGINX_PID=
}
