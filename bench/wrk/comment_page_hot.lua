-- GET /api/v1/articles/{BENCH_PAGE_ID}/comments?sort=hot&size=20&replies=3: the seeded page
-- by likes, then newest (the seeded comments carry 0-4 likes), anonymous.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
request = bench.comment_page("hot")
