-- Not a script: spliced into the scripts that change what a published list page shows
-- (`--! include lib_list_version.lua`, redis/script.cpp).
--
-- Raises the list version of the hash slot `key` is in: pl:lv:{lN} for a key of like shard
-- N (an article's fields, its like and comment counts), pl:lv:{pub} for the list indexes. In
-- the same script as the change, so a list page rendered before it is never served after it
-- (render/article_lists.cpp reads the versions before what they cover). An INCR of a missing key
-- (FLUSHALL) restarts low, where readers take it for unborn and give it a random base.
local function bump_list_version(key)
  redis.call('INCR', 'pl:lv:' .. string.match(key, '{[^}]*}'))
end
