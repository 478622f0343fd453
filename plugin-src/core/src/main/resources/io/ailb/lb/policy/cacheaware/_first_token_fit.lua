-- Part of cache_aware.lua (which reads the fit) and cache_aware_first_token.lua (which adds to it), assembled into
-- each at build time.

-- The fit of first-token times: decayed least-squares sums over the timed requests of x = (1, requests ahead,
-- kilotokens ahead and its own) against the time in ms, kept as 12 numbers (the 3x3 sums of x x^T, then of x y).
-- A fixed 17-digit format, so every double reads back exactly (the local index computes the same in Java).
local FIT_DECAY = 0.998
local function parse_fit(value)
    local fit = {}
    if value then
        for number in string.gmatch(value, '%S+') do
            fit[#fit + 1] = tonumber(number)
        end
    end
    if #fit ~= 12 then
        fit = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
    end
    return fit
end

local function format_fit(fit)
    local parts = {}
    for i = 1, 12 do
        parts[i] = string.format('%.17g', fit[i])
    end
    return table.concat(parts, ' ')
end
