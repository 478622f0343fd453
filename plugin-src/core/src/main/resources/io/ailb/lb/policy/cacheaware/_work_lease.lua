-- Part of cache_aware.lua, cache_aware_first_token.lua and cache_aware_release.lua, assembled into each at build
-- time.

-- What a cache_aware lease holds: "<work> <held> w<wait> <host>", the prefill tokens the request still has in its
-- host's queue, the tokens it counts in the host's held KV until its release, and whether it still counts among the
-- host's requests awaiting their first token: wait is "0" once its first token came (or it was never counted), "1"
-- while it waits, or "<requests>,<tokens>,<ms>" while it waits and its first token will be timed: the requests and
-- prefill tokens ahead of it on the host when it was routed, at that time on the gateway's clock.
local function work_lease(work, held, wait, host)
    return work .. ' ' .. held .. ' w' .. wait .. ' ' .. host
end

-- What a lease becomes once its request ended (released), for as long as ARGV of the release says: "e<written>", its
-- host's written count then. The request's blocks were in use until that moment, so an LRU cache that drops them does
-- so only once that much more was written there (cache_aware.lua's evicted). Not a work lease: parse_work_lease gives
-- nil for it, so nothing heals, times or releases it again.
local function ended_lease(written)
    return 'e' .. written
end

-- The written count of an ended lease's value; nil for a lease still held.
local function ended_written(value)
    return tonumber(string.match(value, '^e(%d+)$'))
end

-- The work, the held tokens, the host and the wait of a lease value; nil for all when the value is not one. A lease
-- written before waiting requests were counted ("<work> <held> <host>", "<work> <host>") holds none of them.
local function parse_work_lease(value)
    local work, held, wait, host = string.match(value, '^(%d+) (%d+) w([%d,]+) (.*)$')
    if host then
        return tonumber(work), tonumber(held), host, wait
    end
    work, held, host = string.match(value, '^(%d+) (%d+) (.*)$')
    if host then
        return tonumber(work), tonumber(held), host, '0'
    end
    work, host = string.match(value, '^(%d+) (.*)$')
    if not host then
        return nil, nil, nil, nil
    end
    return tonumber(work), 0, host, '0'
end

-- The first token of the request holding lease id came (or, unseen, is due): the work it has queued on its host leaves
-- the queue and it stops waiting; the lease keeps the held KV and its host for the release. work, held, host and
-- wait are the lease's (parse_work_lease); uses the including script's subtract.
local function first_token_came(queue, waiting_key, lease_info, id, work, held, host, wait)
    subtract(queue, host, work)
    if wait ~= '0' then
        subtract(waiting_key, host, 1)
    end
    redis.call('HSET', lease_info, id, work_lease(0, held, '0', host))
end

-- The request holding a lease ended (released, or its lease healed after it expired): its host's in-flight count, its
-- held KV, its place among the waiting if it still had one, and the work it still had queued are given back. Returns
-- the host's queue after it.
local function lease_ended(inflight, queue, held_key, waiting_key, work, held, host, wait)
    subtract(inflight, host, 1)
    subtract(held_key, host, held)
    if wait ~= '0' then
        subtract(waiting_key, host, 1)
    end
    return subtract(queue, host, work)
end
