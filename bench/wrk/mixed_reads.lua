-- The comment page thread under mixed load: 90% of requests are comment_page_anon's anonymous
-- GET of the seeded page (sort=new, 20 comments × 3 replies), 10% a PUT or DELETE (at random)
-- of the like of a random comment of that page (BENCH_PAGE_COMMENT_IDS: its 80 ids) by a
-- random seeded user (Bearer token). Responses are told apart by their body (a like answers
-- {"liked":…}, the page {"items":…}) and counted per thread; done prints one line for all
-- threads:
--   mixed: reads N likes M other K seconds S
-- (other: any answer that is not a 200 of one of those shapes). bench/run.sh turns it into
-- reads/s and likes/s.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local path = bench.page_path("new")
local ids = bench.lines("BENCH_PAGE_COMMENT_IDS")
local tokens = bench.lines("BENCH_TOKENS")
local get, heads, auth
local threads = {}

reads, likes, other = 0, 0, 0

setup = function(thread) threads[#threads + 1] = thread end

request = function()
  if not get then
    get, heads, auth = wrk.format("GET", path), bench.like_heads(ids, "comments"),
        bench.auth_lines(tokens)
  end
  if math.random(10) > 1 then return get end
  local h = heads[math.random(2)]
  return h[math.random(#h)] .. auth[math.random(#auth)]
end

response = function(status, headers, body)
  if status ~= 200 then
    other = other + 1
  elseif body:sub(1, 9) == '{"liked":' then
    likes = likes + 1
  elseif body:find('"items":', 1, true) then
    reads = reads + 1
  else
    other = other + 1  -- a 200 of neither shape: counted, not guessed
  end
end

done = function(summary)
  local r, l, o = 0, 0, 0
  for _, t in ipairs(threads) do
    r, l, o = r + t:get("reads"), l + t:get("likes"), o + t:get("other")
  end
  io.write(string.format("mixed: reads %d likes %d other %d seconds %.3f\n", r, l, o,
    summary.duration / 1e6))
end
