-- GET /api/v1/likes?comment=<the 20 top-level comment ids of the seeded page> as a random
-- seeded user: the like state of one comment page.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local path = "/api/v1/likes?comment=" .. table.concat(bench.lines("BENCH_COMMENT_IDS"), ",")
local tokens = bench.lines("BENCH_TOKENS")
local headers = {}

request = function()
  headers["Authorization"] = "Bearer " .. bench.pick(tokens)
  return wrk.format("GET", path, headers)
end
