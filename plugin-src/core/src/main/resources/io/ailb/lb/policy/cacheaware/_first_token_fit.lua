-- Part of cache_aware.lua (which reads the fit) and cache_aware_first_token.lua (which adds to it), assembled into
-- each at build time.

-- The fit of first-token times: decayed least-squares sums over the timed requests of x = (1, requests ahead,
-- kilotokens ahead and its own) against the time in ms, kept as 12 numbers (the 3x3 sums of x x^T, then of x y).
-- A fixed 17-digit format, so every double reads back exactly (the local index computes the same in Java).
local FIT_DECAY = 0.998

-- count decayed sums as stored ("<n> <n> ..."); zeros when the value is missing or not that many numbers.
local function parse_sums(value, count)
    local sums = {}
    if value then
        for number in string.gmatch(value, '%S+') do
            sums[#sums + 1] = tonumber(number)
        end
    end
    if #sums ~= count then
        sums = {}
        for i = 1, count do
            sums[i] = 0
        end
    end
    return sums
end

local function parse_fit(value)
    return parse_sums(value, 12)
end

-- The busy throughput's decayed sums, kept as "<tokens> <ms> <first tokens>": over the first tokens that came to a
-- draining queue, the work each took off it and the ms since the queue began draining (decayed as the fit).
local function parse_drain_rate(value)
    return parse_sums(value, 3)
end

-- A host's queue drains from at on, unless a later first token already said so. Returns when it drained from before
-- (nil: not known).
local function drains_from(drain_key, host, at)
    local since = tonumber(redis.call('HGET', drain_key, host))
    if since == nil or at > since then
        redis.call('HSET', drain_key, host, at)
    end
    return since
end

-- The fit's or the busy throughput's sums as stored.
local function format_sums(sums)
    local parts = {}
    for i = 1, #sums do
        parts[i] = string.format('%.17g', sums[i])
    end
    return table.concat(parts, ' ')
end
