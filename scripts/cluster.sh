#!/usr/bin/env bash
# A local Redis Cluster (3 primaries, 3 replicas) and a Sentinel trio watching a primary and
# its replica, for developing and testing the scale-out modes (issue 29). Debian's
# redis-server only: Sentinels are `redis-server --sentinel`.
#
#   scripts/cluster.sh up [DIR]      start them (DIR: var/cluster), print the --redis URLs
#   scripts/cluster.sh down [DIR]    stop them and remove DIR
#   scripts/cluster.sh status [DIR]  the cluster's and the Sentinels' view
#
# Ports from CLUSTER_BASE_PORT (7100): the cluster on base..base+5 (and their buses at
# +10000, which must be free too), the Sentinels on base+10..base+12, the watched primary and
# replica on base+20, base+21. Every server listens on 127.0.0.1 only, keeps nothing on disk
# between runs, and runs daemonized with its pid file, log and data under DIR/<port>.
set -euo pipefail

cmd=${1:-}
dir=${2:-var/cluster}
base=${CLUSTER_BASE_PORT:-7100}
cluster_ports=$(seq "$base" $((base + 5)))
sentinel_ports=$(seq $((base + 10)) $((base + 12)))
watched_primary=$((base + 20))
watched_replica=$((base + 21))
service=plaudit

die() { echo "cluster.sh: $*" >&2; exit 1; }

wait_ping() {  # port
  for _ in $(seq 1 100); do
    [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
    sleep 0.05
  done
  die "redis on port $1 did not answer (see $dir/$1/redis.log)"
}

start_server() {  # port, extra redis-server arguments...
  local port=$1
  shift
  mkdir -p "$dir/$port"
  redis-server --bind 127.0.0.1 --port "$port" --dir "$(realpath "$dir/$port")" \
    --daemonize yes --pidfile "$(realpath "$dir/$port")/redis.pid" \
    --logfile "$(realpath "$dir/$port")/redis.log" --save '' --appendonly no "$@"
  wait_ping "$port"
}

up() {
  [ -e "$dir" ] && die "$dir exists: run '$0 down $dir' first"
  for p in $cluster_ports; do
    start_server "$p" --cluster-enabled yes --cluster-config-file nodes.conf \
      --cluster-node-timeout 2000
  done
  local nodes=()
  for p in $cluster_ports; do nodes+=("127.0.0.1:$p"); done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log"
  for p in $cluster_ports; do
    for _ in $(seq 1 200); do
      redis-cli -p "$p" CLUSTER INFO | grep -q '^cluster_state:ok' && break
      sleep 0.05
    done
    redis-cli -p "$p" CLUSTER INFO | grep -q '^cluster_state:ok' ||
      die "node $p: cluster not ok (see $dir/create.log)"
  done

  start_server "$watched_primary"
  start_server "$watched_replica" --replicaof 127.0.0.1 "$watched_primary"
  for p in $sentinel_ports; do
    mkdir -p "$dir/$p"
    # Sentinel rewrites its configuration file: one of its own each.
    cat >"$dir/$p/sentinel.conf" <<EOF
bind 127.0.0.1
port $p
daemonize yes
pidfile $(realpath "$dir/$p")/redis.pid
logfile $(realpath "$dir/$p")/redis.log
dir $(realpath "$dir/$p")
sentinel monitor $service 127.0.0.1 $watched_primary 2
sentinel down-after-milliseconds $service 1000
sentinel failover-timeout $service 5000
EOF
    redis-server "$dir/$p/sentinel.conf" --sentinel
    wait_ping "$p"
  done
  local cluster_url sentinel_url
  cluster_url="redis-cluster://$(printf '127.0.0.1:%s,' $(seq "$base" $((base + 2))) | sed 's/,$//')"
  sentinel_url="redis-sentinel://$(printf '127.0.0.1:%s,' $sentinel_ports | sed 's/,$//')/$service"
  echo "cluster:  $cluster_url"
  echo "sentinel: $sentinel_url"
}

down() {
  [ -d "$dir" ] || return 0
  local pids=()
  for pidfile in "$dir"/*/redis.pid; do
    [ -f "$pidfile" ] && pids+=("$(cat "$pidfile")")
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
}

status() {
  [ -d "$dir" ] || die "$dir: nothing is up"
  redis-cli -p "$base" CLUSTER NODES
  for p in $sentinel_ports; do
    echo "sentinel $p: primary $(redis-cli -p "$p" SENTINEL get-master-addr-by-name $service | paste -sd:)"
  done
}

case "$cmd" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) die "usage: $0 up|down|status [DIR]" ;;
esac
