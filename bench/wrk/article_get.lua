-- GET /api/v1/articles/{random seeded id}, anonymous (counts a view, as a reader would).
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local ids = bench.lines("BENCH_IDS")

request = function()
  return wrk.format("GET", "/api/v1/articles/" .. bench.pick(ids))
end
