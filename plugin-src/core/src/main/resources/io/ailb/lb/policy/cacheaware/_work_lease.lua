-- Part of cache_aware.lua, cache_aware_first_token.lua and cache_aware_release.lua, assembled into each at build
-- time.

-- What a cache_aware lease holds: "<work> <held> <host>", the prefill tokens the request still has in its host's
-- queue and the tokens it counts in the host's held KV until its release.
local function work_lease(work, held, host)
    return work .. ' ' .. held .. ' ' .. host
end

-- The work, the held tokens and the host of a lease value; nil, nil, nil when the value is not one. A lease written
-- before held KV was counted ("<work> <host>") holds none.
local function parse_work_lease(value)
    local work, held, host = string.match(value, '^(%d+) (%d+) (.*)$')
    if host then
        return tonumber(work), tonumber(held), host
    end
    work, host = string.match(value, '^(%d+) (.*)$')
    if not host then
        return nil, nil, nil
    end
    return tonumber(work), 0, host
end
