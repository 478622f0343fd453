-- Chooses the upstream host for one request and counts it as in flight, atomically, in one round trip.
-- Used by global_least_request (no prefix keys) and prefix_cache.
-- Every key is in KEYS and shares one {hash tag}, so the script touches a single Redis Cluster slot.
--
-- Every increment is recorded as a lease (id chosen by the gateway, expiry from the Redis clock), and release.lua
-- gives a count back only by taking its lease; see _selection.lua for leases and healing.
--
-- KEYS[1]      in-flight HASH: host -> count (a missing field counts as 0)
-- KEYS[2]      cleanup marker: exists while the last cleanup is younger than the clean interval
-- KEYS[3]      lease ZSET: lease id -> expiry, in Unix seconds of the Redis clock
-- KEYS[4]      lease HASH: lease id -> the host whose count the lease holds
-- KEYS[5..]    prefix keys for conversation depth 1, 2, ...: STRING holding the host that served that prefix
-- ARGV[1]      random non-negative integer for the tie-break (no Lua RNG: replies stay reproducible)
-- ARGV[2]      maxRequestCount, 0 = no cap
-- ARGV[3]      clean interval in seconds, 0 = clean on every call
-- ARGV[4]      TTL of the in-flight hash and of both lease keys, in seconds
-- ARGV[5]      TTL of prefix keys in seconds
-- ARGV[6]      lease id of this request (unique per request)
-- ARGV[7]      lease TTL in seconds: a count still held this long after its increment is given back
-- ARGV[8]      h = number of healthy hosts
-- ARGV[9..8+h] healthy hosts; the remaining ARGV are known but unhealthy hosts (kept by the cleanup)
--
-- Returns {"ok", host, count, depth}: depth = how many prefix levels matched (0 = least in flight decided);
-- or {"full", host, count} when even the least loaded host already has maxRequestCount in flight (nothing was
-- counted and no lease written; expired leases may have been healed).

--#include "_selection.lua"

local inflight = KEYS[1]
local marker = KEYS[2]
local leases = KEYS[3]
local lease_hosts = KEYS[4]
local first_prefix = 5
local rand = tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local clean_interval = tonumber(ARGV[3])
local inflight_ttl = tonumber(ARGV[4])
local prefix_ttl = tonumber(ARGV[5])
local lease_id = ARGV[6]
local lease_ttl = tonumber(ARGV[7])
local healthy_count = tonumber(ARGV[8])
local first_host = 9
local last_healthy = first_host + healthy_count - 1
local levels = #KEYS - first_prefix + 1

local healthy = {}
for i = first_host, last_healthy do
    healthy[ARGV[i]] = true
end

local now = tonumber(redis.call('TIME')[1])
-- Same rule as release.lua: decrement only a positive count; a count reaching zero is removed.
heal_expired(leases, lease_hosts, now, function(host)
    subtract(inflight, host, 1, true)
end)

-- Longest stored prefix whose holder is still healthy; the first missing or unhealthy-held level ends the walk.
local target = nil
local depth = 0
for d = 1, levels do
    local holder = redis.call('GET', KEYS[first_prefix + d - 1])
    if not holder or not healthy[holder] then
        break
    end
    target = holder
    depth = d
end

-- A full cache holder loses its affinity: the least loaded host serves and takes over the whole path.
if target and cap > 0 and non_negative(redis.call('HGET', inflight, target)) >= cap then
    target = nil
    depth = 0
end

if not target then
    local best = nil
    local ties = {}
    hmget_in_chunks(ARGV, first_host, last_healthy, { inflight }, function(host, value)
        local c = non_negative(value)
        if best == nil or c < best then
            best = c
            ties = { host }
        elseif c == best then
            ties[#ties + 1] = host
        end
    end)
    local pick = ties[(rand % #ties) + 1]
    if cap > 0 and best >= cap then
        return { 'full', pick, best }
    end
    target = pick
end

local count
if redis.call('ZSCORE', leases, lease_id) then
    -- The lease id is already taken (a repeated call, or two gateways drawing the same id): one lease holds one
    -- count, so this request is routed but not counted again, and the lease's single release stays exact.
    count = non_negative(redis.call('HGET', inflight, target))
else
    -- Set rather than HINCRBY: a corrupt or negative stored count restarts from zero.
    count = non_negative(redis.call('HGET', inflight, target)) + 1
    redis.call('HSET', inflight, target, count)
    hold_lease(leases, lease_hosts, lease_id, now + lease_ttl, target)
    redis.call('EXPIRE', inflight, inflight_ttl)
    redis.call('EXPIRE', leases, inflight_ttl)
    redis.call('EXPIRE', lease_hosts, inflight_ttl)
end

for d = 1, depth do
    redis.call('EXPIRE', KEYS[first_prefix + d - 1], prefix_ttl)
end
for d = depth + 1, levels do
    redis.call('SET', KEYS[first_prefix + d - 1], target, 'EX', prefix_ttl)
end

-- Drop fields of hosts that left the cluster and counts that fell to zero or below.
clean_up(marker, clean_interval, { inflight }, first_host)

return { 'ok', target, count, depth }
