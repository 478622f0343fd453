-- Part of cache_aware.lua, cache_aware_first_token.lua and cache_aware_release.lua, assembled into each at build
-- time.

-- What a cache_aware lease holds: "<work> <host>", the prefill tokens the request still has in its host's queue.
local function work_lease(work, host)
    return work .. ' ' .. host
end

-- The work and the host of a lease value; nil, nil when the value is not one.
local function parse_work_lease(value)
    local work, host = string.match(value, '^(%d+) (.*)$')
    if not host then
        return nil, nil
    end
    return tonumber(work), host
end
