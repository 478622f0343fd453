-- The first token of one cache_aware request came back: its prefill is done, so the prefill tokens it added to its
-- host's queue (written by cache_aware.lua under its lease) leave the queue now; the lease keeps the in-flight count
-- for the release (cache_aware_release.lua) with no work left. Idempotent: a second call, a call after the release
-- or for a call that counted nothing finds no lease work and changes nothing. Creates no key.
--
-- KEYS[1] queue HASH: host -> prefill tokens routed and not yet answered
-- KEYS[2] lease ZSET: lease id -> expiry
-- KEYS[3] lease HASH: lease id -> "<work> <held> <host>"
-- ARGV[1] lease id
--
-- Returns the tokens taken off the queue, or -1 when the lease is not held.

--#include "../inflight/_subtract.lua"
--#include "_work_lease.lua"

if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    return -1
end
local info = redis.call('HGET', KEYS[3], ARGV[1])
local work, held, host = nil, nil, nil
if info then
    work, held, host = parse_work_lease(info)
end
if not host then
    return -1
end
if work > 0 then
    subtract(KEYS[1], host, work)
    redis.call('HSET', KEYS[3], ARGV[1], work_lease(0, held, host))
end
return work
