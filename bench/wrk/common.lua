-- Shared by the scenario scripts (wrk runs each script once per thread, in its own Lua state).
-- Loaded with: local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
-- Env: BENCH_IDS (file, one article id a line), BENCH_TOKENS (file, one session token a line),
-- BENCH_PAGE_ID (the article with the seeded comment page), BENCH_COMMENT_IDS (file, its 20
-- top-level comment ids), BENCH_PAGE_COMMENT_IDS (file, all 80 ids of that page: top-level
-- and replies), BENCH_CREATE_ID (the article comment_create writes to),
-- BENCH_LIKE_COMMENT_IDS (file, 5 top-level comments on each of the 200 seeded articles),
-- BENCH_COMMENT_HOT_ID (the first of those), all written by bench/run.sh while seeding;
-- BENCH_ETAG (the comment page's ETag, for the *_304 scenarios).
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

-- PUT or DELETE (at random) of a random user's like on one target: `id` fixed (hot), or
-- a random one of the ids in the file named by env `ids_var` (spread; default BENCH_IDS).
-- `kind`: "articles" (default) or "comments", the path's collection. Every (method, target)
-- request head and every user's Authorization line is formatted once up front; a request is
-- then two concatenations. Calling wrk.format (a header table, string.format, table.concat)
-- per request cost wrk ~2 µs of CPU on the 2 cores it shares with the servers under test.
-- The draws are the same as before: user, target and method independently at random for
-- every request.
function M.like_heads(ids, kind)  -- → {PUT heads, DELETE heads}, each without its last CRLF
  local heads = {{}, {}}
  for i, a in ipairs(ids) do
    -- wrk.format ends the header with an empty line; drop it to append one more field.
    heads[1][i] = wrk.format("PUT", "/api/v1/" .. kind .. "/" .. a .. "/like"):sub(1, -3)
    heads[2][i] = wrk.format("DELETE", "/api/v1/" .. kind .. "/" .. a .. "/like"):sub(1, -3)
  end
  return heads
end

function M.auth_lines(tokens)  -- → "Authorization: Bearer <token>\r\n\r\n" per token
  local auth = {}
  for i, t in ipairs(tokens) do auth[i] = "Authorization: Bearer " .. t .. "\r\n\r\n" end
  return auth
end

function M.like_requests(id, kind, ids_var)
  local ids = id and {id} or M.lines(ids_var or "BENCH_IDS")
  local tokens = M.lines("BENCH_TOKENS")
  local heads, auth
  return function()
    -- built on the first request: wrk.init has set the Host header by then
    if not heads then heads, auth = M.like_heads(ids, kind or "articles"), M.auth_lines(tokens) end
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
function M.page_path(sort)
  return "/api/v1/articles/" .. M.env("BENCH_PAGE_ID") .. "/comments?sort=" .. sort ..
      "&size=20&replies=3"
end

-- `signed_in`: true forces the signed-in form (comment_page_auth.lua).
function M.comment_page(sort, signed_in)
  local path = M.page_path(sort)
  if not signed_in and os.getenv("BENCH_COMMENT_AUTH") ~= "1" then
    return function() return wrk.format("GET", path) end
  end
  local tokens = M.lines("BENCH_TOKENS")
  local headers = {}
  return function()
    headers["Authorization"] = "Bearer " .. M.pick(tokens)
    return wrk.format("GET", path, headers)
  end
end

-- Status counting, for scenarios whose expected status is not 200 (the *_304 ones): defines
-- wrk's setup/response/done so that each thread counts its responses by status and done
-- prints one line "statuses: 304=N 200=M …" (all threads) on wrk's stdout. wrk itself counts
-- only statuses > 399 in "Non-2xx or 3xx responses" (despite its name: a 304 is not in it),
-- so a server answering 200 instead of 304 would pass unseen without this.
function M.count_statuses()
  local threads = {}
  setup = function(thread) threads[#threads + 1] = thread end
  statuses = {}
  response = function(status)
    statuses[status] = (statuses[status] or 0) + 1
  end
  done = function()
    local all = {}
    for _, t in ipairs(threads) do
      for s, n in pairs(t:get("statuses")) do all[s] = (all[s] or 0) + n end
    end
    local keys = {}
    for s in pairs(all) do keys[#keys + 1] = s end
    table.sort(keys)
    local out = {}
    for _, s in ipairs(keys) do out[#out + 1] = s .. "=" .. all[s] end
    io.write("statuses: " .. table.concat(out, " ") .. "\n")
  end
end

return M
