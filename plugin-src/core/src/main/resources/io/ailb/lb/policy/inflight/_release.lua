-- Part of the release scripts (release.lua, cache_aware_release.lua), assembled into each at build time.

--#include "_subtract.lua"

-- take_lease for a caller that already read the lease's value (HGET values lease_id) to decide whether to take it.
local function take_read_lease(leases, values, lease_id, value)
    local taken = redis.call('ZREM', leases, lease_id)
    redis.call('HDEL', values, lease_id)
    if taken == 0 or not value then
        return nil
    end
    return value
end

-- Takes lease_id out of both lease keys (ZSET leases, HASH values) and returns what it held, or nil when it was not
-- held (never written, already released, or healed after it expired): only a lease still held gives anything back.
local function take_lease(leases, values, lease_id)
    return take_read_lease(leases, values, lease_id, redis.call('HGET', values, lease_id))
end
