-- Part of the selection scripts (select.lua, cache_aware.lua), assembled into each at build time.
--
-- Leases: every request a selection script counts holds one, a ZSET member (lease id -> expiry, Unix seconds of the
-- Redis clock) plus a HASH field (lease id -> what the lease holds). The release script takes it, so a release is
-- idempotent and may be sent whenever a call's outcome is unknown (timeout, reset); a lease nobody releases (the
-- gateway crashed, or the release was lost) expires, and the next calls give back what it holds ("healing", at most
-- HEAL_LIMIT leases per call).

-- TIME is non-deterministic: Redis < 5 accepts writes after it only with effects replication (default since 5).
if redis.replicate_commands then
    redis.replicate_commands()
end

--#include "_subtract.lua"

local HEAL_LIMIT = 100
-- HMGET in chunks: unpack() of thousands of arguments would overflow the Lua C stack.
local HMGET_CHUNK = 500

-- Garbage or negative values (e.g. an old plugin's leak) must neither attract nor repel traffic.
local function non_negative(value)
    local n = tonumber(value)
    if n == nil or n < 0 then
        return 0
    end
    return n
end

-- Records a lease: lease_id expires at expiry and holds value.
local function hold_lease(leases, values, lease_id, expiry, value)
    redis.call('ZADD', leases, expiry, lease_id)
    redis.call('HSET', values, lease_id, value)
end

-- Heal first, so that what leaked from crashed gateways or lost releases neither attracts 429s nor repels traffic:
-- give_back(value) is called for what each expired lease holds, then the leases are removed. Whole seconds, and a
-- lease expires strictly after its score: it lives at least its TTL, at most one second more.
local function heal_expired(leases, values, now, give_back)
    local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', '(' .. now, 'LIMIT', 0, HEAL_LIMIT)
    if #expired > 0 then
        local held = redis.call('HMGET', values, unpack(expired))
        for i = 1, #expired do
            if held[i] then
                give_back(held[i])
            end
        end
        redis.call('ZREM', leases, unpack(expired))
        redis.call('HDEL', values, unpack(expired))
    end
end

-- Calls visit(item, its value in hashes[1], its value in hashes[2], ...) for items[first..last] in order, reading
-- with one HMGET per HASH and chunk of items; a hashes[k] of false is not read (its values are nil).
local function hmget_in_chunks(items, first, last, hashes, visit)
    for from = first, last, HMGET_CHUNK do
        local to = math.min(from + HMGET_CHUNK - 1, last)
        local part = {}
        for i = from, to do
            part[#part + 1] = items[i]
        end
        local replies = {}
        for k = 1, #hashes do
            replies[k] = hashes[k] and redis.call('HMGET', hashes[k], unpack(part)) or {}
        end
        for i, item in ipairs(part) do
            local values = {}
            for k = 1, #hashes do
                values[k] = replies[k][i]
            end
            -- Bounds given: a value of a hash not read is nil, and unpack() alone may stop at the first nil.
            visit(item, unpack(values, 1, #hashes))
        end
    end
end

-- Once per clean interval (on every call when it is 0), drops from each of the hashes the fields of hosts that left
-- the cluster (not in ARGV[first_known..]) and values that fell to zero or below (a value's first word: "<n> <rest>"
-- counts as n).
local function clean_up(marker, clean_interval, hashes, first_known)
    local due = true
    if clean_interval > 0 then
        due = redis.call('SET', marker, '1', 'EX', clean_interval, 'NX')
    end
    if not due then
        return
    end
    local known = {}
    for i = first_known, #ARGV do
        known[ARGV[i]] = true
    end
    for _, key in ipairs(hashes) do
        local fields = redis.call('HGETALL', key)
        for i = 1, #fields, 2 do
            local n = tonumber(string.match(fields[i + 1], '^%S+'))
            if not known[fields[i]] or n == nil or n <= 0 then
                redis.call('HDEL', key, fields[i])
            end
        end
    end
end
