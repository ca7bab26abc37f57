-- GET /api/v1/articles/{BENCH_PAGE_ID}/comments?sort=new&size=20&replies=3, anonymous, with
-- If-None-Match: BENCH_ETAG (the ETag the server answered for that request, read with curl by
-- bench/run.sh): a reader revalidating a page it holds. 304 is the expected answer; the
-- responses are counted by status (done prints "statuses: 304=N …"), since wrk's own error
-- count only sees statuses above 399. bench/run.sh runs it on plauditd (comment_page_304) and
-- on nginx serving the page as a static file (nginx_304), each with its own ETag.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local path = bench.page_path("new")
local etag = bench.env("BENCH_ETAG")
local req
request = function()
  if not req then req = wrk.format("GET", path, { ["If-None-Match"] = etag }) end
  return req
end
bench.count_statuses()
