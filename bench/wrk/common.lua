-- Shared by the scenario scripts (wrk runs each script once per thread, in its own Lua state).
-- Loaded with: local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
-- Env: BENCH_IDS (file, one article id a line), BENCH_TOKENS (file, one session token a line),
-- BENCH_PAGE_ID (the article with the seeded comment page), BENCH_COMMENT_IDS (file, its 20
-- top-level comment ids), BENCH_CREATE_ID (the article comment_create writes to), all
-- written by bench/run.sh while seeding.
local M = {}

function M.lines(var)
  local path = os.getenv(var)
  if not path or path == "" then error(var .. " is not set") end
  local out = {}
  for line in io.lines(path) do
    if line ~= "" then out[#out + 1] = line end
  end
  if #out == 0 then error(path .. " is empty") end
  return out
end

-- A different sequence per thread and per run.
local addr = tonumber((tostring({}):match("0x(%x+)")) or "0", 16) or 0
math.randomseed(os.time() + addr % 1000003)
for _ = 1, 10 do math.random() end

function M.pick(list) return list[math.random(#list)] end

-- PUT or DELETE (at random) of a random user's like on one article: `id` fixed (hot), or
-- a random one of `ids` (spread). Every (method, article) request head and every user's
-- Authorization line is formatted once up front; a request is then two concatenations.
-- Calling wrk.format (a header table, string.format, table.concat) per request cost wrk
-- ~2 µs of CPU on the 2 cores it shares with the servers under test. The draws are the
-- same as before: user, article and method independently at random for every request.
function M.like_requests(id)
  local ids = id and {id} or M.lines("BENCH_IDS")
  local tokens = M.lines("BENCH_TOKENS")
  local heads, auth
  local function build()  -- on the first request: wrk.init has set the Host header by then
    heads = {{}, {}}
    for i, a in ipairs(ids) do
      -- wrk.format ends the header with an empty line; drop it to append one more field.
      heads[1][i] = wrk.format("PUT", "/api/v1/articles/" .. a .. "/like"):sub(1, -3)
      heads[2][i] = wrk.format("DELETE", "/api/v1/articles/" .. a .. "/like"):sub(1, -3)
    end
    auth = {}
    for i, t in ipairs(tokens) do auth[i] = "Authorization: Bearer " .. t .. "\r\n\r\n" end
  end
  return function()
    if not heads then build() end
    local h = heads[math.random(2)]
    return h[math.random(#h)] .. auth[math.random(#auth)]
  end
end

function M.env(var)
  local v = os.getenv(var)
  if not v or v == "" then error(var .. " is not set") end
  return v
end

-- GET /api/v1/articles/{BENCH_PAGE_ID}/comments?sort=<sort>&size=20&replies=3: the seeded
-- 20-comment page with 3 replies each. Anonymous, or with BENCH_COMMENT_AUTH=1 as a random
-- seeded user (Bearer token: the session lookup and the caller's own like states).
function M.comment_page(sort)
  local path = "/api/v1/articles/" .. M.env("BENCH_PAGE_ID") .. "/comments?sort=" .. sort ..
      "&size=20&replies=3"
  if os.getenv("BENCH_COMMENT_AUTH") ~= "1" then
    return function() return wrk.format("GET", path) end
  end
  local tokens = M.lines("BENCH_TOKENS")
  local headers = {}
  return function()
    headers["Authorization"] = "Bearer " .. M.pick(tokens)
    return wrk.format("GET", path, headers)
  end
end

return M
