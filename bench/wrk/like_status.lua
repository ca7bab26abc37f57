-- GET /api/v1/likes?article=<20 ids> as a random seeded user: the like state of one list
-- page (20 consecutive seeded ids from a random start).
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local ids = bench.lines("BENCH_IDS")
local tokens = bench.lines("BENCH_TOKENS")
local headers = {}
local page = {}

request = function()
  local start = math.random(#ids)
  for i = 1, 20 do page[i] = ids[(start + i - 2) % #ids + 1] end
  headers["Authorization"] = "Bearer " .. bench.pick(tokens)
  return wrk.format("GET", "/api/v1/likes?article=" .. table.concat(page, ","), headers)
end
