-- After the SQL commit of a claimed batch: forget the in-flight hashes.
-- KEYS[1] in-flight set, KEYS[2..] the in-flight hashes; ARGV the members.
for i = 1, #ARGV do
  redis.call('DEL', KEYS[i + 1])
  redis.call('SREM', KEYS[1], ARGV[i])
end
return 1
