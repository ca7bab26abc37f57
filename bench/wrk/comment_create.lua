-- POST /api/v1/articles/{BENCH_CREATE_ID}/comments {"body": ...} as a random seeded user: a
-- top-level comment on an article of its own (the page article does not grow).
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local path = "/api/v1/articles/" .. bench.env("BENCH_CREATE_ID") .. "/comments"
local tokens = bench.lines("BENCH_TOKENS")
local headers = { ["Content-Type"] = "application/json" }
local n = 0

request = function()
  n = n + 1
  headers["Authorization"] = "Bearer " .. bench.pick(tokens)
  local body = '{"body":"Bench comment ' .. n .. ': a sentence or two of ordinary reader ' ..
      'feedback on the article, about this long."}'
  return wrk.format("POST", path, headers, body)
end
