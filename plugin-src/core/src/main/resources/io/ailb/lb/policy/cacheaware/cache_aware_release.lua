-- Ends one cache_aware request by taking its lease (written by cache_aware.lua): only a lease still held gives back
-- its host's in-flight count, exactly the prefill tokens it still has in the host's queue, the KV it counts as
-- held there and its place among the requests awaiting their first token if it still has one, so a release is
-- idempotent — sending it twice, for a call that counted nothing (full, error, never executed), or after the lease
-- expired and was healed changes nothing. Values never go below zero; a value reaching zero is removed. Creates no
-- key.
--
-- KEYS[1] in-flight HASH: host -> count
-- KEYS[2] queue HASH: host -> prefill tokens routed and not yet answered
-- KEYS[3] lease ZSET: lease id -> expiry
-- KEYS[4] lease HASH: lease id -> "<work> <held> w<wait> <host>"
-- KEYS[5] held HASH: host -> prompt tokens routed as work by the requests in flight there
-- KEYS[6] waiting HASH: host -> requests routed whose first token has not come back
-- ARGV[1] lease id
--
-- Returns the host's remaining work units, or -1 when the lease was not held (nothing was given back).

--#include "../inflight/_release.lua"
--#include "_work_lease.lua"

local info = take_lease(KEYS[3], KEYS[4], ARGV[1])
if not info then
    return -1
end
local work, held, host, wait = parse_work_lease(info)
if not host then
    return -1
end
return lease_ended(KEYS[1], KEYS[2], KEYS[5], KEYS[6], work, held, host, wait)
