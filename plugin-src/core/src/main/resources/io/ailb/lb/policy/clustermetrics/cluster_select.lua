-- cluster_metrics AdaptiveScore with global_inflight_enabled: chooses a service by its score and the requests in
-- flight to it from every gateway, and counts the request, in one round trip. Each gateway scores latency and
-- errors from its own responses; only the in-flight counts are shared, as leases (see ../inflight/_selection.lua),
-- so a count a crashed gateway never gave back heals when its lease expires. release.lua of the inflight package gives
-- a count back (its KEYS are this script's KEYS[1..3]).
--
-- KEYS[1]   in-flight HASH: service -> requests in flight (a missing field counts as 0)
-- KEYS[2]   lease ZSET: lease id -> expiry, in Unix seconds of the Redis clock
-- KEYS[3]   lease HASH: lease id -> the service whose count the lease holds
-- ARGV[1]   random non-negative integer for the tie-break
-- ARGV[2]   lease id of this request
-- ARGV[3]   lease TTL in seconds: a count still held this long is given back
-- ARGV[4]   TTL of the three keys in seconds
-- ARGV[5..] per candidate, three values: service, its latency and error score, and the in-flight it is charged on top
--           of its real count (a cooling-down service's consecutive errors + 1, else 0)
--
-- score = latency and error score x (requests in flight + 1 + extra); the lowest wins.
-- Returns {service, its in-flight count after this request}.

--#include "../inflight/_selection.lua"

local inflight = KEYS[1]
local leases = KEYS[2]
local lease_services = KEYS[3]
local rand = tonumber(ARGV[1])
local lease_id = ARGV[2]
local lease_ttl = tonumber(ARGV[3])
local key_ttl = tonumber(ARGV[4])
local first_candidate = 5

local now = tonumber(redis.call('TIME')[1])
heal_expired(leases, lease_services, now, function(service)
    subtract(inflight, service, 1, true)
end)

local best = nil
local ties = {}
local counts = {}
for i = first_candidate, #ARGV, 3 do
    local service = ARGV[i]
    local count = non_negative(redis.call('HGET', inflight, service))
    counts[service] = count
    local score = tonumber(ARGV[i + 1]) * (count + 1 + tonumber(ARGV[i + 2]))
    if best == nil or score < best then
        best = score
        ties = { service }
    elseif score == best then
        ties[#ties + 1] = service
    end
end
if best == nil then
    return redis.error_reply('no candidate service')
end
local pick = ties[(rand % #ties) + 1]

local count = counts[pick]
if not redis.call('ZSCORE', leases, lease_id) then
    -- One lease holds one count: a repeated call is routed but not counted twice.
    count = count + 1
    redis.call('HSET', inflight, pick, count)
    hold_lease(leases, lease_services, lease_id, now + lease_ttl, pick)
    redis.call('EXPIRE', inflight, key_ttl)
    redis.call('EXPIRE', leases, key_ttl)
    redis.call('EXPIRE', lease_services, key_ttl)
end
return { pick, count }
