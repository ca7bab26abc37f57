-- GET /api/v1/pages/counts?url=…×50, anonymous: what an index page's count.js sends for the
-- bench site's 50 page threads (the path is in the file BENCH_COUNTS_PATH; plauditd runs with
-- --sites http://bench.example). bench/run.sh runs it without this script, by URL.
local bench = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
local path = bench.lines("BENCH_COUNTS_PATH")[1]
request = function()
  return wrk.format("GET", path)
end
