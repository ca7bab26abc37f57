-- GET /api/v1/articles/{BENCH_PAGE_ID}/comments?sort=new&size=20&replies=3 signed in, as a
-- random seeded user (Bearer token): comment_page_anon's page plus the session lookup and the
-- caller's own like state of every comment on it.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
request = bench.comment_page("new", true)
