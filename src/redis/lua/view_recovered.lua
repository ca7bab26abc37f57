-- Ends a views recovery (view_check.lua): clears the mark if the caller still owns it.
-- KEYS[1] the recovery mark pl:vrm:{views}; ARGV[1] the owner token.
-- Returns 1 when cleared, 0 when another process took the recovery over (it finishes it).
local mark = redis.call('GET', KEYS[1])
if not mark then return 1 end
if string.match(mark, '^(%S+) ') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
