-- GET /api/v1/likes?article=<20 ids that name no article> as a random seeded user: what a
-- stranger's (or a stale page's) ids cost next to like_status's known ones. Before the probe
-- issue each unknown id went to SQL on every call, 10x the cost of a known one (issue 47
-- keeps the row in make bench).
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local tokens = bench.lines("BENCH_TOKENS")
local headers = {}
local page = {}

request = function()
  local start = 900000000 + math.random(1000000)
  for i = 1, 20 do page[i] = start + i end
  headers["Authorization"] = "Bearer " .. bench.pick(tokens)
  return wrk.format("GET", "/api/v1/likes?article=" .. table.concat(page, ","), headers)
end
