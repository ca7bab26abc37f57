-- Echoes its first argument: a cheap round trip through the script path (tests, readiness).
return ARGV[1]
