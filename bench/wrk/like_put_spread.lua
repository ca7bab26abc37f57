-- PUT or DELETE /api/v1/articles/{random id}/like as a random seeded user (Bearer token).
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
request = bench.like_requests(nil)
