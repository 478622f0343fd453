-- Ends one in-flight request by taking its lease (written by select.lua): only a lease still held gives its host's
-- count back, so a release is idempotent — sending it twice, for a call that never incremented (full, error,
-- never executed), or after the lease expired and was healed changes nothing. The count is decremented only while
-- it is positive (e.g. the hash may have expired, or the cleanup removed a host that left); zero is removed.
-- Creates no key.
--
-- KEYS[1] in-flight HASH: host -> count
-- KEYS[2] lease ZSET: lease id -> expiry
-- KEYS[3] lease HASH: lease id -> host
-- ARGV[1] lease id
--
-- Returns the host's remaining count, or -1 when the lease was not held (nothing was decremented).

local host = redis.call('HGET', KEYS[3], ARGV[1])
local taken = redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
if taken == 0 or not host then
    return -1
end

local n = tonumber(redis.call('HGET', KEYS[1], host))
if n == nil or n <= 0 then
    return 0
end
if n <= 1 then
    redis.call('HDEL', KEYS[1], host)
    return 0
end
return redis.call('HINCRBY', KEYS[1], host, -1)
