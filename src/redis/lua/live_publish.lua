-- Publishes one event of a thread's live updates (API.md "Live updates"): the thread's next
-- sequence number, then the message on the one channel every plauditd listens to, in one
-- step, so that messages of one thread reach every listener in sequence order (one node runs
-- the script and sends the message; a cluster's bus forwards it in order) and a listener that
-- sees a number skipped knows it missed one.
-- KEYS[1] pl:lvs:{lN}:<article>; ARGV[1] the channel, ARGV[2] the article id, ARGV[3] the
-- event's text (kind and comment id). The sequence lives a day past its last event: a thread
-- quiet for longer starts again at 1, which listeners take for a new start (reset).
-- Returns the sequence number.
local seq = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], 86400)
redis.call('PUBLISH', ARGV[1], ARGV[2] .. ' ' .. seq .. ' ' .. ARGV[3])
return seq
