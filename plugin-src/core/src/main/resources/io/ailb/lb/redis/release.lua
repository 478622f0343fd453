-- Ends one in-flight request: decrements the host's count only while it is positive, so a count never goes
-- negative (e.g. after the hash expired or a cleanup removed the host). A count reaching zero is removed.
--
-- KEYS[1] in-flight HASH: host -> count
-- ARGV[1] host
--
-- Returns the host's remaining count.

local n = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
if n == nil or n <= 0 then
    return 0
end
if n <= 1 then
    redis.call('HDEL', KEYS[1], ARGV[1])
    return 0
end
return redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
