-- The first token of one cache_aware request came back: its prefill is done, so the prefill tokens it added to its
-- host's queue (written by cache_aware.lua under its lease) leave the queue now and it no longer counts among the
-- host's requests awaiting their first token; the lease keeps the in-flight count for the release
-- (cache_aware_release.lua) with no work left. When the lease says the request is timed, the time from its routing to
-- now joins the fit of first-token times against the requests and the tokens that were ahead of it (its own
-- included). The host's queue drains from now on (KEYS[6], once cache_aware.lua created it); when it was draining
-- already, the request's work came out of it in the time since, which joins the busy throughput "r" (cache_aware.lua's
-- drained_h). Idempotent: a second
-- call, a call after the release or for a call that counted nothing finds the lease done or gone and changes nothing.
--
-- KEYS[1] queue HASH: host -> prefill tokens routed and not yet answered
-- KEYS[2] lease ZSET: lease id -> expiry
-- KEYS[3] lease HASH: lease id -> "<work> <held> w<wait> <host>"
-- KEYS[4] waiting HASH: host -> requests routed whose first token has not come back
-- KEYS[5] routed HASH: "f" -> the fit of first-token times, "r" -> the busy throughput's sums (created only with the
--         routed HASH's other fields)
-- KEYS[6] drain HASH: host -> since when its queue has been draining, in the gateways' Unix ms
-- ARGV[1] lease id
-- ARGV[2] the gateway's clock in ms, now
--
-- Returns the tokens taken off the queue, or -1 when the lease is not held.

--#include "../inflight/_subtract.lua"
--#include "_work_lease.lua"
--#include "_first_token_fit.lua"

if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    return -1
end
local info = redis.call('HGET', KEYS[3], ARGV[1])
local work, held, host, wait = nil, nil, nil, nil
if info then
    work, held, host, wait = parse_work_lease(info)
end
if not host then
    return -1
end
if work == 0 and wait == '0' then
    return 0
end
local queued_before = tonumber(redis.call('HGET', KEYS[1], host)) or 0
first_token_came(KEYS[1], KEYS[4], KEYS[3], ARGV[1], work, held, host, wait)
local ahead, tokens, routed_at = string.match(wait, '^(%d+),(%d+),(%d+)$')
local now = tonumber(ARGV[2])
local routed_exists = redis.call('EXISTS', KEYS[5]) == 1
if now and redis.call('EXISTS', KEYS[6]) == 1 then
    local since = drains_from(KEYS[6], host, now)
    if since and queued_before > 0 and routed_exists then
        local rate = parse_drain_rate(redis.call('HGET', KEYS[5], 'r'))
        rate[1] = rate[1] * FIT_DECAY + work
        rate[2] = rate[2] * FIT_DECAY + math.max(0, now - since)
        rate[3] = rate[3] * FIT_DECAY + 1
        redis.call('HSET', KEYS[5], 'r', format_sums(rate))
    end
end
if routed_at and now and routed_exists then
    local x = { 1, tonumber(ahead), (tonumber(tokens) + work) / 1000 }
    local ms = math.max(0, now - tonumber(routed_at))
    local fit = parse_fit(redis.call('HGET', KEYS[5], 'f'))
    for i = 1, 3 do
        for j = 1, 3 do
            fit[3 * (i - 1) + j] = fit[3 * (i - 1) + j] * FIT_DECAY + x[i] * x[j]
        end
        fit[9 + i] = fit[9 + i] * FIT_DECAY + x[i] * ms
    end
    redis.call('HSET', KEYS[5], 'f', format_sums(fit))
end
return work
