-- PUT or DELETE /api/v1/comments/{random id}/like as a random seeded user (Bearer token), the
-- id drawn from BENCH_LIKE_COMMENT_IDS: 5 top-level comments on each of the 200 seeded
-- articles. like_put_spread.lua's shape, on comments instead of articles.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
request = bench.like_requests(nil, "comments", "BENCH_LIKE_COMMENT_IDS")
