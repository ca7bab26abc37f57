-- PUT or DELETE /api/v1/comments/{BENCH_COMMENT_HOT_ID}/like as a random seeded user: every
-- request on one comment. like_put_hot.lua's shape (same draws, same prepared heads), on a
-- comment instead of an article.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
request = bench.like_requests(bench.env("BENCH_COMMENT_HOT_ID"), "comments")
