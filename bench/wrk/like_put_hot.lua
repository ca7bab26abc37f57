-- PUT or DELETE /api/v1/articles/{BENCH_HOT_ID}/like as a random seeded user: every request
-- on one article (one shard, one count key, the same few user buckets).
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local hot = os.getenv("BENCH_HOT_ID")
if not hot or hot == "" then error("BENCH_HOT_ID is not set") end
request = bench.like_requests(hot)
