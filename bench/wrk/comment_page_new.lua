-- GET /api/v1/articles/{BENCH_PAGE_ID}/comments?sort=new&size=20&replies=3: the seeded page
-- (20 top-level comments, 3 replies each), newest first, anonymous.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
request = bench.comment_page("new")
