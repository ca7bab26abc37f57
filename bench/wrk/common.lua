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

-- Requests drawn up front, then served in turn: building one in Lua per request (wrk.format
-- with a header table) cost wrk about as much CPU as a hello request costs the hello server,
-- and wrk shares the 2 cores with the server under test. 8192 draws cover every
-- (user, article, method) of the seeded spread set (200 x 20 x 2) several times over.
function M.pool(make, n)
  local pool = {}
  for i = 1, (n or 8192) do pool[i] = make() end
  local i = 0
  return function()
    i = i % #pool + 1
    return pool[i]
  end
end

-- PUT or DELETE (at random) of a random user's like on one article: `id` fixed (hot), or
-- a random one of `ids` (spread).
function M.like_requests(id)
  local ids = M.lines("BENCH_IDS")
  local tokens = M.lines("BENCH_TOKENS")
  return M.pool(function()
    local target = id or M.pick(ids)
    local headers = {["Authorization"] = "Bearer " .. M.pick(tokens)}
    local method = math.random(2) == 1 and "PUT" or "DELETE"
    return wrk.format(method, "/api/v1/articles/" .. target .. "/like", headers)
  end)
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
