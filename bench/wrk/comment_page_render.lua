-- The seeded comment page (20 top-level comments × 3 replies), anonymous, as a reader who
-- misses the page cache gets it: size 20-100 and replies 3-20 at random, so that nearly every
-- request is a page key of its own (1,458 of them) and renders, where comment_page_anon's
-- concurrent misses of one key share one render (SingleFlight). Every answer has the same
-- items; run plauditd with --page-cache-mb 0 so that nothing is kept between requests.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local base = "/api/v1/articles/" .. bench.env("BENCH_PAGE_ID") .. "/comments?sort=new&size="
request = function()
  return wrk.format("GET", base .. math.random(20, 100) .. "&replies=" .. math.random(3, 20))
end
