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
