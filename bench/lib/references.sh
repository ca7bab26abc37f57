# The references measured in bench/run.sh's own run, on the same cores (sourced; needs
# common.sh, and from run.sh: BUILD, WORK, SOCK, LUA_DIR, pids): bench/hello, the floor of an
# HTTP server on the same stack (every scenario is also given as a ratio to it), and
# redis-benchmark driving like_set.lua on plauditd's embedded Redis (step 3).
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

# start_hello → HELLO_PORT: bench_hello on a free port (its pid appended to pids)
start_hello() {
  "$BUILD/bench_hello" 0 >"$WORK/hello.log" 2>&1 &
  pids+=($!)
  HELLO_PORT=$(wait_port_line "$WORK/hello.log" 'listening on [0-9]+')
}

# Step 3, the redis-benchmark reference: like_set.lua on the same embedded Redis (AOF everysec).
# -r 100000: __rand_int__ becomes a random 12-digit, zero-padded user id (so a string member,
# not an intset one); each call likes (ARGV[2] = 1): the first call per user writes, repeats
# only read. The keys are set up in big mode (the user's bucket with its loaded mark 0, the
# count) and named like plauditd's (the script builds every key but the small set's from that
# one, and the third value of a like names the bucket: 0 for every user here), so no call
# takes a "not loaded" exit and no call splits; ARGV[2] 'big' is the mode guess plauditd
# passes once it has seen the target split. One like a call, as a target liked now and then.
LIKE_KEYS=('pl:lk:{x}:t:s' 'pl:lk:{x}:t:0' 'pl:lc:{x}:t' 'pl:lp:{x}:t:s' 'pl:lp:{x}:t:0'
  'pl:ld:{x}' 'pl:lseq:{x}')
rb_like() {  # SHA PIPELINE → "ops_per_s writes"
  rcli DEL "${LIKE_KEYS[@]}" >/dev/null
  rcli SADD 'pl:lk:{x}:t:0' 0 >/dev/null
  rcli SET 'pl:lc:{x}:t' 0 >/dev/null
  local ops
  ops=$(redis-benchmark -s "$SOCK" -c 50 -n 200000 -r 100000 -P "$2" -q \
      evalsha "$1" 1 'pl:lk:{x}:t:s' 1795000000000 big '' __rand_int__ 1 0 2>&1 |
    tr '\r' '\n' | grep -oE '[0-9.]+ requests per second' | tail -1 | awk '{print $1}')
  echo "${ops:-0} $(rcli GET 'pl:lc:{x}:t' | tr -d '\r')"
}
rb_ping() {  # PIPELINE → ops/s of PING (the same Redis' floor cost per call, for scale)
  redis-benchmark -s "$SOCK" -c 50 -n 100000 -P "$1" -q -t ping_mbulk 2>&1 |
    tr '\r' '\n' | grep -oE '[0-9.]+ requests per second' | tail -1 | awk '{print $1}'
}

# run_redis_benchmark → RB1 RB1_WRITES (unpipelined), RB16 RB16_WRITES (-P 16), RBPING1,
# RBPING16, REDIS_VERSION
run_redis_benchmark() {
  local sha
  sha=$(rcli -x SCRIPT LOAD <"$LUA_DIR/like_set.lua" | tr -d '\r')
  read -r RB1 RB1_WRITES < <(rb_like "$sha" 1)
  read -r RB16 RB16_WRITES < <(rb_like "$sha" 16)
  rcli DEL "${LIKE_KEYS[@]}" >/dev/null
  RBPING1=$(rb_ping 1)
  RBPING16=$(rb_ping 16)
  REDIS_VERSION=$(rcli INFO server | tr -d '\r' | awk -F: '$1=="redis_version" {print $2}')
  echo "redis-benchmark EVALSHA like_set.lua: $RB1 ops/s unpipelined ($RB1_WRITES of 200000 wrote), $RB16 ops/s with -P 16 ($RB16_WRITES wrote)" >&2
}
