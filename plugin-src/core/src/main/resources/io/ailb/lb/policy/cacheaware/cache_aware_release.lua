-- Ends one cache_aware request by taking its lease (written by cache_aware.lua): only a lease still held gives back
-- its host's in-flight count and exactly the work it added to the host's load, so a release is idempotent — sending
-- it twice, for a call that counted nothing (full, error, never executed), or after the lease expired and was
-- healed changes nothing. Values never go below zero; a value reaching zero is removed. Creates no key.
--
-- KEYS[1] in-flight HASH: host -> count
-- KEYS[2] load HASH: host -> work units
-- KEYS[3] lease ZSET: lease id -> expiry
-- KEYS[4] lease HASH: lease id -> "<work> <host>"
-- ARGV[1] lease id
--
-- Returns the host's remaining work units, or -1 when the lease was not held (nothing was given back).

local info = redis.call('HGET', KEYS[4], ARGV[1])
local taken = redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
if taken == 0 or not info then
    return -1
end
local work, host = string.match(info, '^(%d+) (.*)$')
if not host then
    return -1
end
work = tonumber(work)

local function subtract(key, amount)
    local n = tonumber(redis.call('HGET', key, host))
    if n == nil then
        return 0
    end
    if n - amount <= 0 then
        redis.call('HDEL', key, host)
        return 0
    end
    return redis.call('HINCRBY', key, host, -amount)
end

subtract(KEYS[1], 1)
return subtract(KEYS[2], work)
