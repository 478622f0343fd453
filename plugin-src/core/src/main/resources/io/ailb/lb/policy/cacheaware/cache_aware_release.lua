-- Ends one cache_aware request by taking its lease (written by cache_aware.lua): only a lease still held gives back
-- its host's in-flight count, exactly the prefill tokens it still has in the host's queue, the KV it counts as
-- held there and its place among the requests awaiting their first token if it still has one, so a release is
-- idempotent — sending it twice, for a call that counted nothing (full, error, never executed), or after the lease
-- expired and was healed changes nothing. Values never go below zero; a value reaching zero is removed. With ARGV[2]
-- above 0 the lease then stays that many seconds as an ended one, holding its host's written count now
-- (_work_lease.lua's ended_lease): the blocks the request used were in use until now, so an engine's LRU cache drops
-- them only once that much more was written there, however much was written while it ran (cache_aware.lua's evicted;
-- a conversation's next turn, sent once the answer is in, found its history judged evicted after a long answer on a
-- busy instance).
--
-- KEYS[1] in-flight HASH: host -> count
-- KEYS[2] queue HASH: host -> prefill tokens routed and not yet answered
-- KEYS[3] lease ZSET: lease id -> expiry
-- KEYS[4] lease HASH: lease id -> "<work> <held> w<wait> <host>", or "e<written>" once ended
-- KEYS[5] held HASH: host -> prompt tokens routed as work by the requests in flight there
-- KEYS[6] waiting HASH: host -> requests routed whose first token has not come back
-- KEYS[7] written HASH: host -> prompt tokens routed to it as work so far
-- ARGV[1] lease id
-- ARGV[2] seconds an ended lease is kept; 0 = none
-- ARGV[3] TTL of the lease keys in seconds
--
-- Returns the host's remaining work units, or -1 when the lease was not held (nothing was given back).

--#include "../inflight/_release.lua"
--#include "_work_lease.lua"

local current = redis.call('HGET', KEYS[4], ARGV[1])
if current and ended_written(current) then
    return -1
end
local info = take_read_lease(KEYS[3], KEYS[4], ARGV[1], current)
if not info then
    return -1
end
local work, held, host, wait = parse_work_lease(info)
if not host then
    return -1
end
local left = lease_ended(KEYS[1], KEYS[2], KEYS[5], KEYS[6], work, held, host, wait)
local keep = tonumber(ARGV[2]) or 0
if keep > 0 then
    local written = math.max(0, tonumber(redis.call('HGET', KEYS[7], host)) or 0)
    local ttl = tonumber(ARGV[3])
    redis.call('ZADD', KEYS[3], tonumber(redis.call('TIME')[1]) + keep, ARGV[1])
    redis.call('HSET', KEYS[4], ARGV[1], ended_lease(written))
    redis.call('EXPIRE', KEYS[3], ttl)
    redis.call('EXPIRE', KEYS[4], ttl)
end
return left
