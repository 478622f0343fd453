-- Part of the lease scripts (select.lua, release.lua and the cache_aware scripts), assembled into each
-- at build time.

-- Subtracts amount from a HASH field, never below zero: a result of zero or below removes the field, a missing field
-- stays missing (no key is created). With keep_non_positive, a value already at zero or below is left as it is: the
-- in-flight count rule of select.lua and release.lua (cache_aware's scripts remove such a value). Returns what is left.
local function subtract(key, field, amount, keep_non_positive)
    local n = tonumber(redis.call('HGET', key, field))
    if n == nil or (keep_non_positive and n <= 0) then
        return 0
    end
    if amount == 0 then
        -- Nothing to take (a lease whose work already left at the first token); HINCRBY would get "-0".
        return n
    end
    if n - amount <= 0 then
        redis.call('HDEL', key, field)
        return 0
    end
    return redis.call('HINCRBY', key, field, -amount)
end
