-- Publishes one event of a thread's live updates (API.md "Live updates"): the thread's next
-- sequence number, then the message on the one channel every plauditd listens to, in one
-- step, so that messages of one thread reach every listener in sequence order (one node runs
-- the script and sends the message; a cluster's bus forwards it in order) and a listener that
-- sees a number skipped knows it missed one.
-- KEYS[1] pl:lvs:{lN}:<article>; ARGV[1] the channel, ARGV[2] the article id, ARGV[3] the
-- event's text (kind and ids). The sequence lives a day past its last event: a thread quiet
-- for longer starts again at 1, which listeners take for a new start (reset).
-- Gated (like counts, at most one event a second per thread from all instances together):
-- KEYS[2] pl:lvg:{lN}:<article>, ARGV[4] the gap in ms. While the gate is held nothing is
-- published and the reply is minus the ms left (the caller keeps its news and comes back).
-- (Gated or not is ARGV[4]'s presence: on a cluster the client adds a slot guard to KEYS.)
-- Returns the sequence number.
if ARGV[4] then
  if not redis.call('SET', KEYS[2], '1', 'PX', ARGV[4], 'NX') then
    local left = redis.call('PTTL', KEYS[2])
    if left < 0 then
      -- A gate without a TTL (written by hand, or by a restore) would hold for ever.
      redis.call('PEXPIRE', KEYS[2], ARGV[4])
      left = tonumber(ARGV[4])
    elseif left < 1 then
      left = 1
    end
    return -left
  end
end
local seq = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], 86400)
redis.call('PUBLISH', ARGV[1], ARGV[2] .. ' ' .. seq .. ' ' .. ARGV[3])
return seq
