-- GET /api/v1/articles/{BENCH_PAGE_ID}/comments?sort=new&size=20&replies=3, anonymous: the
-- seeded page (20 top-level comments, 3 replies each), newest first, as a reader who is not
-- signed in gets it. The same request as comment_page_new.lua (kept for bench/ab.sh and the
-- older results); the read path against nginx (bench/run.sh step 2) names it this way, and
-- nginx_comment_page sends it to nginx serving the bytes plauditd answered.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local path = bench.page_path("new")
request = function() return wrk.format("GET", path) end
