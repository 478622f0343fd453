-- cache_aware: chooses the upstream host for one request by the least estimated time to its first token, counts it
-- in flight and adds its prefill to the host's queue, atomically, in one round trip. Shared by every gateway on the
-- same Redis. Every key is in KEYS and shares one {hash tag}, so the script touches a single Redis Cluster slot.
--
-- For each healthy host h (token counts are estimated prompt tokens):
--   queued_h   = prefill tokens of the requests routed to h whose first token has not come back yet (for a
--                response that does not stream, whose first byte comes with its last: is not expected yet, by the
--                fit of first-token times below, or at ARGV[18] tokens a second before it has learned)
--   inflight_h = requests in flight on h
--   uncached_h = prompt - matched_h, matched_h the tokens of the longest prefix routed to h (deepest block key
--                listing h and not evicted there: with the instances' KV size known, a block counts as evicted from h
--                once more new prompt tokens were routed to h since its last use there than that size, as an LRU
--                cache drops it, unless the request of that use is still in flight: an engine keeps the blocks of a
--                running request; once it ended, since its end, while its ended lease is kept): blocks of requests
--                still queued there count, they will be cached when this one runs;
--                when assistant messages follow that prefix, h answered it and holds them too (engines cache
--                generated tokens), so they count as matched on h
--   q          = mean of queued_h over healthy hosts but the one with the longest queue (over the one host when
--                alone), in requests: divided by the mean work (uncached tokens) that recent requests queued (sums
--                decayed by 0.999 per request, about the last thousand)
--   weight     = 1 + q + g * q^2 / overload_queue_requests (no q^2 term when it is 0), at most MAX_WEIGHT;
--                g = PREFILL_BOUND_GROWTH (2) while queues drain at an instance's prefill rate, else 1
--   hot_h      = tokens of the request's known prefix that h lacks, when every block of that prefix is hot; else 0
--   held_h     = prompt tokens routed to h as work by the requests in flight there: the KV cache they take up or will
--                (a request is admitted only once its prompt fits next to the running requests' blocks)
--   recent_h   = prompt tokens routed to h as work, each fading by e^(-age / RECENT_SECONDS), age on the gateways'
--                clock (ARGV[16]: what the gateway sees, and what a simulated gateway simulates)
--   start      = START_INFLIGHT_FACTOR (3) when the request starts a conversation on a prefix other requests share
--                (no session host, blocks of its own after the deepest held block, that block used before) and even
--                the least busy host holding that block has over BUSY_HOLDER_MARGIN (1.2) times the mean inflight_h,
--                with q at least START_MIN_QUEUE (0.1); else 1
--   weight_h   = min(weight, the weight of h's own queue in requests) when start is 3, q is at least
--                BEHIND_MIN_QUEUE (1) and even the least queued host holding that block has more queued than the
--                typical host (q in tokens): the holders are behind; else weight
--   waiting_h  = requests routed to h whose first token has not come back
--   drained_h  = the tokens of queued_h the instance has prefilled by now: it has been working through its queue since
--                the later of its last first token and its queue's last filling from empty (drain HASH), at the busy
--                throughput learned from first tokens (cache_aware_first_token.lua's "r": tokens that came out of
--                draining queues per ms they drained; ARGV[18] before 50 of them), at most queued_h; 0 while that
--                throughput is below ARGV[18] (the queues are not prefill-bound). A queue is counted in full until a
--                first token says how far the instance got, so a host whose long prefill is nearly done looked as
--                busy as one that just took it on
--   per_request = what one request waiting ahead adds to a first-token time, in prompt tokens, learned from the
--                first-token times of the requests that stream (cache_aware_first_token.lua fits them against the
--                requests and the tokens that were ahead of each on its host): an engine that serves requests one at
--                a time pays a fixed cost for each even on a full hit, one that batches them pays it once per step;
--                0 until 50 timed requests, or when the fit finds no such cost, and 0 once the typical host (the mean
--                over healthy hosts but the one with the most) has two requests waiting
--   cost_h     = queued_h - drained_h + per_request * waiting_h + weight_h * uncached_h - hot_h
--                + start * inflight_tokens * inflight_h
--                + recent_share * (recent_h - mean over healthy hosts of recent_h), that term only for a
--                request nobody holds any block of and without a session host (it starts a conversation)
--                + min(weight, 4) * max(0, held_h + uncached_h - KV size), with the KV size known and some host
--                with room for the request: the tokens that do not fit wait until running requests end and free
--                theirs, holding up the requests queued behind
--                + min(HOLDER_PRICE (4) * weight * max(0, matched on the best holder - matched_h),
--                max(0, the best holder's queued - drained minus h's)), for a request that
--                continues a conversation of its own (its best holder holds more than its first block, and at most one
--                request used its deepest held block before) while the hosts have HOLDER_MIN_INFLIGHT (2) requests in
--                flight each on average and q is below HOLDER_MAX_QUEUE (8): a move prefills that history again
-- A block is hot when its share of the requests routed since it was first seen, times the number of hosts,
-- exceeds 1.5 times the number of hosts holding it: its holders carry well over a fair share of the traffic.
--
-- An idle fleet weighs a request's own prefill like anyone's queue (the fastest first token wins). Every token
-- prefilled again on a host delays the requests that queue behind it meanwhile, about q of them, so uncached tokens
-- weigh 1 + q; once every queue is several requests long (overload: work added anywhere is never caught up) they weigh
-- quadratically more, and prefixes stay where they are cached. Counting the queue in requests rather than tokens
-- keeps this apart from the request size: a queue of two long document prompts is as short as two chat turns.
-- A request that shares only hot blocks (a new conversation on a system prompt or tool set
-- many sessions share) is not charged its own prefill of them: copying them to another host pays back over the many
-- requests that carry them, where charging them in full would pile all of those onto the first holder. A request
-- with a conversation of its own cached somewhere is charged in full and stays with it.
-- Work a host took on in the last seconds is partly load to come: the conversations it just started come back for
-- their next turns, after their queue has emptied. A request that starts a conversation of its own (no block of it
-- held anywhere, no session host) is charged recent_share of each host's excess over the fleet's mean, so new
-- conversations (and new prompt groups) even out across hosts instead of going wherever a prefill just finished. A
-- request with a prefix held somewhere is not: its choice is between holders and copies, and the recent work of the
-- others only pushed it off its best host (skewed prompt groups under overload).
-- A conversation started on busy holders of its shared prefix comes back there for its next turns: the count in
-- flight, which stands for the conversations a host is serving, weighs three times, so it starts on a less busy host
-- and copies the shared prefix once, where it would otherwise add every later turn to the busiest hosts. Where each
-- prefix has its own hosts, its holders are no busier than the mean and nothing changes; before queues form, the copy
-- would only cost its prefill.
-- The request goes to argmin cost_h (uniform random tie-break)
-- among the hosts below maxRequestCount and adds work = uncached_target to queued_target until its first token
-- (cache_aware_first_token.lua) or its release. Its lease remembers the host and the work still queued, so release
-- (cache_aware_release.lua) or the healing of an expired lease gives back exactly what is left.
-- Without blocks (bodyless or unparseable request) every matched_h is 0: the least loaded host wins.
-- With a session key (the request named its session in the configured header), the host that served the session's
-- last request counts as holding that request's prompt: matched = max(matched by blocks, that prompt, capped at this
-- one). A conversation that only appends stays where its cache is even when its body cannot be hashed (over
-- max_body_bytes, not JSON), and still moves when that host's queue outweighs its cache, like any cached prefix.
--
-- KEYS[1]      in-flight HASH: host -> count (shared with global_least_request and prefix_cache)
-- KEYS[2]      queue HASH: host -> prefill tokens routed and not yet answered
-- KEYS[3]      cleanup marker: exists while the last cleanup is younger than the clean interval
-- KEYS[4]      lease ZSET: lease id -> expiry, in Unix seconds of the Redis clock
-- KEYS[5]      lease HASH: lease id -> "<work> <held> w<wait> <host>", or "e<written>" for a while once ended
--              (_work_lease.lua)
-- KEYS[6]      routed HASH: "n" requests routed so far, "w" and "c" the decayed sums of the work queued per request
--              and of requests, "f" the fit of first-token times (_work_lease.lua), "r" the busy throughput's sums
--              (_first_token_fit.lua)
-- KEYS[7]      written HASH: host -> prompt tokens routed to it as work so far (new tokens in its KV cache)
-- KEYS[8]      recent HASH: host -> "<recent_h> <gateway seconds>", recent_h as of that time, rounded to a token
-- KEYS[9]      held HASH: host -> prompt tokens routed as work by the requests in flight there (held_h)
-- KEYS[10]     waiting HASH: host -> requests routed whose first token has not come back (waiting_h)
-- KEYS[11]     unseen first-token ZSET: lease id -> when the first token of a request whose response does not stream
--              is expected, in the gateways' Unix ms
-- KEYS[12]     drain HASH: host -> since when its queue has been draining, in the gateways' Unix ms (drained_h)
-- KEYS[13]     with S = 1 only: the session HASH "h" -> host of the session's last request, "p" -> its prompt tokens
-- KEYS[13+S..] block keys for prefix depth 1, 2, ...: HASH holder host -> "<last use> <written> <lease>" (Unix
--              seconds, the host's written count then, and the lease id of the request of that use; a bare number:
--              the last use alone, never judged evicted; without the lease: no request in flight keeps it), "#u" ->
--              requests routed with the block, "#t" -> the routed counter when the block was first seen
-- ARGV[1]      random non-negative integer for the tie-break
-- ARGV[2]      maxRequestCount, 0 = no cap
-- ARGV[3]      clean interval in seconds, 0 = clean on every call
-- ARGV[4]      TTL of the in-flight, queue and lease keys, in seconds
-- ARGV[5]      TTL of block keys in seconds; a holder not seen for this long is pruned
-- ARGV[6]      lease id of this request (unique per request)
-- ARGV[7]      lease TTL in seconds
-- ARGV[8]      inflight_tokens: queue cost of one request in flight, in prompt tokens
-- ARGV[9]      overload_queue_requests: typical queue per host (q above), in requests, at which the q^2 term
--              equals q; 0 = none
-- ARGV[10]     estimated prompt tokens of the request
-- ARGV[11]     most holders one block key keeps
-- ARGV[12]     S = 1 when KEYS[13] is the request's session key, else 0
-- ARGV[13]     L = number of blocks (= #KEYS - 12 - S)
-- ARGV[14]     KV cache of one instance in tokens; 0 = unknown, no block is judged evicted and no room is counted
-- ARGV[15]     recent_share; 0 = no recent term
-- ARGV[16]     the gateway's clock in Unix milliseconds
-- ARGV[17]     1 when the response streams, so its first byte is the first token and its time joins the fit; else 0
-- ARGV[18]     prefill tokens per second of one instance, assumed for a response that does not stream until the fit
--              has learned a cost per token, and for drained_h until the busy throughput is learned
-- ARGV[19..18+L]            cumulative estimated prompt tokens at the end of blocks 1..L
-- ARGV[19+L..18+2L]         the same plus the answer (assistant messages) that directly follows each block
-- ARGV[19+2L]               h = number of healthy hosts
-- ARGV[20+2L..19+2L+h]      healthy hosts; the remaining ARGV are known but unhealthy hosts (kept by the cleanup)
--
-- Returns {"ok", host, count, depth, matched_tokens, cost, work, first_token_in}: count = the host's in-flight count
-- after this request, depth = matched blocks on the host, cost rounded to a whole token, first_token_in the ms after
-- which the first token of a response that does not stream is expected (0 for one that streams; -1 when, with no
-- streamed request timed yet, the typical queue has reached UNTIL_END_QUEUE requests: its work counts until its
-- end); or
-- {"full", host, count} when every healthy host already has maxRequestCount in flight (host = the least counted one;
-- nothing was counted, no lease written).

--#include "../inflight/_selection.lua"
--#include "_work_lease.lua"
--#include "_first_token_fit.lua"

local inflight = KEYS[1]
local queue = KEYS[2]
local marker = KEYS[3]
local leases = KEYS[4]
local lease_info = KEYS[5]
local routed_key = KEYS[6]
local written_key = KEYS[7]
local recent_key = KEYS[8]
local held_key = KEYS[9]
local waiting_key = KEYS[10]
local unseen_key = KEYS[11]
local drain_key = KEYS[12]
local has_session = ARGV[12] == '1'
local session_key = has_session and KEYS[13] or nil
local first_block = has_session and 14 or 13
local rand = tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local clean_interval = tonumber(ARGV[3])
local state_ttl = tonumber(ARGV[4])
local block_ttl = tonumber(ARGV[5])
local lease_id = ARGV[6]
local lease_ttl = tonumber(ARGV[7])
local inflight_tokens = tonumber(ARGV[8])
local overload_queue_requests = tonumber(ARGV[9])
local prompt = tonumber(ARGV[10])
local max_holders = tonumber(ARGV[11])
local levels = tonumber(ARGV[13])
local kv_tokens = non_negative(ARGV[14])
local recent_share = non_negative(ARGV[15])
local gateway_ms = non_negative(ARGV[16])
local gateway_now = math.floor(gateway_ms / 1000)
local timed = ARGV[17] == '1'
local prior_ms_per_kilotoken = 1000000 / tonumber(ARGV[18])
-- Derived as the local index derives it, so both compare the drain alike.
local prior_tokens_per_second = 1000000 / prior_ms_per_kilotoken
local first_tokens = 19
local first_answered = first_tokens + levels
local healthy_count = tonumber(ARGV[first_answered + levels])
local first_host = first_answered + levels + 1
local last_healthy = first_host + healthy_count - 1

if levels ~= #KEYS - first_block + 1 then
    return redis.error_reply('cache_aware: ' .. levels .. ' block sizes for ' .. (#KEYS - first_block + 1) .. ' keys')
end

local function round(x)
    return math.floor(x + 0.5)
end

local now = tonumber(redis.call('TIME')[1])
local routed_state = redis.call('HMGET', routed_key, 'n', 'w', 'c', 'f', 'r')
local routed = non_negative(routed_state[1])
local work_sum = non_negative(routed_state[2])
local request_sum = non_negative(routed_state[3])

-- The fit's coefficients: ms fixed, ms per request ahead and ms per kilotoken, from its 3x3 normal equations by
-- Cramer's rule; nil before MIN_TIMED timed requests or when they do not determine them (the local index's solveFit,
-- term for term).
local MIN_TIMED = 50
local MAX_PER_REQUEST = 8192
local function solve_fit(fit)
    if fit[1] < MIN_TIMED then
        return nil
    end
    local m, y = fit, { fit[10], fit[11], fit[12] }
    local det = m[1] * (m[5] * m[9] - m[6] * m[8]) - m[2] * (m[4] * m[9] - m[6] * m[7])
        + m[3] * (m[4] * m[8] - m[5] * m[7])
    if math.abs(det) < 1e-9 then
        return nil
    end
    local ms_fixed = (y[1] * (m[5] * m[9] - m[6] * m[8]) - m[2] * (y[2] * m[9] - m[6] * y[3])
        + m[3] * (y[2] * m[8] - m[5] * y[3])) / det
    local ms_per_request = (m[1] * (y[2] * m[9] - m[6] * y[3]) - y[1] * (m[4] * m[9] - m[6] * m[7])
        + m[3] * (m[4] * y[3] - y[2] * m[7])) / det
    local ms_per_kilotoken = (m[1] * (m[5] * y[3] - y[2] * m[8]) - m[2] * (m[4] * y[3] - y[2] * m[7])
        + y[1] * (m[4] * m[8] - m[5] * m[7])) / det
    return ms_fixed, ms_per_request, ms_per_kilotoken
end

-- per_request: the fit's cost of one request ahead in tokens (0 when it finds no positive one).
local function per_request_of(fit)
    local _, ms_per_request, ms_per_kilotoken = solve_fit(fit)
    if not ms_per_request or ms_per_request <= 0 or ms_per_kilotoken <= 0 then
        return 0
    end
    return math.min(MAX_PER_REQUEST, 1000 * ms_per_request / ms_per_kilotoken)
end

-- The tokens a second an instance works through its queue: the busy throughput once MIN_TIMED first tokens (decayed)
-- came to draining queues, else the prefill rate assumed (the local index's drainTokensPerSecond).
local function drain_tokens_per_second(rate)
    if rate[3] >= MIN_TIMED and rate[2] > 0 then
        return 1000 * rate[1] / rate[2]
    end
    return prior_tokens_per_second
end

-- The latest a first token the gateway cannot see is expected, in ms after the routing.
local MAX_FIRST_TOKEN_MS = 120000

local UNTIL_END = -1
-- The typical queue, in requests, from which first_token_in deems the fleet overloaded. Not overload_queue_requests:
-- holding work from two requests on already doubled unstreamed TTFT at twice the trace's rate.
local UNTIL_END_QUEUE = 4

-- When, in ms after its routing, the first token of a request with requests_ahead requests waiting and tokens prefill
-- tokens queued on its host (its own included) should come back: the fit's prediction once it has a positive cost
-- per token; while no streamed request has been timed (clients that do not stream), UNTIL_END when the fleet is
-- overloaded (its decode will crawl behind full prefill steps, and counting its work until its end weighs that
-- backlog, which its prefill alone does not); else the tokens at the prefill rate the gateway sends (ARGV[18]). For a
-- request whose response does not stream: the gateway never sees its first token.
local function first_token_in(fit, requests_ahead, tokens, overloaded)
    local kilotokens = tokens / 1000
    local ms_fixed, ms_per_request, ms_per_kilotoken = solve_fit(fit)
    local predicted
    if ms_fixed and ms_per_kilotoken > 0 then
        predicted = ms_fixed + math.max(0, ms_per_request) * requests_ahead + ms_per_kilotoken * kilotokens
    elseif overloaded and fit[1] == 0 then
        return UNTIL_END
    else
        predicted = prior_ms_per_kilotoken * kilotokens
    end
    return math.floor(math.min(MAX_FIRST_TOKEN_MS, math.max(0, predicted)))
end

-- Leases nobody released (crashed gateway, lost release) give back their count, their queued work and their held
-- KV.
heal_expired(leases, lease_info, now, function(info)
    local work, held, host, wait = parse_work_lease(info)
    if host then
        lease_ended(inflight, queue, held_key, waiting_key, work, held, host, wait)
    end
end)

-- A request whose response does not stream shows its first byte only with its last, so its first token is taken as
-- come once its expected time has passed: its work leaves the queue and it no longer waits (as
-- cache_aware_first_token.lua does, untimed); its count and held KV stay until its release.
-- Its host's queue drains from the time it was due.
local due_leases = redis.call('ZRANGEBYSCORE', unseen_key, '-inf', gateway_ms, 'WITHSCORES')
if #due_leases > 0 then
    for i = 1, #due_leases, 2 do
        local id = due_leases[i]
        local info = redis.call('HGET', lease_info, id)
        local work, held, host, wait = nil, nil, nil, nil
        if info then
            work, held, host, wait = parse_work_lease(info)
        end
        if host and (work > 0 or wait ~= '0') then
            first_token_came(queue, waiting_key, lease_info, id, work, held, host, wait)
            drains_from(drain_key, host, tonumber(due_leases[i + 1]))
        end
    end
    redis.call('ZREMRANGEBYSCORE', unseen_key, '-inf', gateway_ms)
    redis.call('EXPIRE', drain_key, state_ttl)
end

local healthy = {}
local hosts = {}
for i = first_host, last_healthy do
    if not healthy[ARGV[i]] then
        healthy[ARGV[i]] = true
        hosts[#hosts + 1] = ARGV[i]
    end
end

-- How far above a fair share a block's traffic per holder must be to make it hot. Above 1, so a prefix carrying
-- exactly its share (as many prompt groups as hosts, each on its own) does not flap between hot and not on noise.
local HOT_SHARE = 1.5

local function matched_tokens(depth)
    if depth == nil or depth == 0 then
        return 0
    end
    return math.min(non_negative(ARGV[first_tokens + depth - 1]), prompt)
end

-- What a host whose deepest block is depth holds: that prefix and the answer it gave to it, if the request goes on
-- with one (a holder of the next block too would be deeper).
local function held_tokens(depth)
    if depth == nil or depth == 0 then
        return 0
    end
    return math.max(matched_tokens(depth), math.min(non_negative(ARGV[first_answered + depth - 1]), prompt))
end

-- A holder's field value: its last use, its written count then (absent in a bare number: never evicted) and the
-- lease of the request of that use (absent in values written before the leases were).
local function parse_holder(value)
    local space = string.find(value, ' ', 1, true)
    if not space then
        return tonumber(value), nil, nil
    end
    local second = string.find(value, ' ', space + 1, true)
    if not second then
        return tonumber(string.sub(value, 1, space - 1)), tonumber(string.sub(value, space + 1)), nil
    end
    return tonumber(string.sub(value, 1, space - 1)), tonumber(string.sub(value, space + 1, second - 1)),
        string.sub(value, second + 1)
end

-- Prompt tokens routed to each host as work so far: what entered its KV cache. Every holder's is needed only to
-- judge evictions; otherwise only the target's is read, once it is chosen.
local written_of = {}
if kv_tokens > 0 then
    local written_fields = redis.call('HGETALL', written_key)
    for i = 1, #written_fields, 2 do
        written_of[written_fields[i]] = non_negative(written_fields[i + 1])
    end
end

-- Whether a holder whose use was at written count at, by the request holding lease user, has lost the block: more new
-- tokens entered host's cache since then than it holds, so an LRU cache has dropped it, and that request has ended.
-- A running request's blocks stay: in the Mooncake trace at x4, answers run for over a minute and the next turn
-- comes while the last one still decodes (81,920 and 71,680 tokens of history judged lost where they were not). An
-- ended one's were in use until its end, so the tokens written since then count (its ended lease; past that, the
-- count since its routing): sent once the answer was in, the trace's turns at x4 found their histories judged lost
-- after answers of a minute on busy instances (hit rate 16.3 % where not judging evictions at all gave 20.3 %). They
-- evict it once they exceed the room the requests running there leave (their blocks are pinned): against the whole
-- size, caches of 200,000 tokens kept holders they had lost (p99 +15 % at twice the trace's rate).
-- A request writes the same holder value into every block it used, so the walk asks about one lease (and its host's
-- held KV) at each depth: each is read once per call (false: no such lease).
local lease_value_of = {}
local held_now_of = {}
local function evicted(host, at, user)
    local written = written_of[host] or 0
    if not (kv_tokens > 0 and at ~= nil and written - at > kv_tokens) then
        return false
    end
    if user == nil then
        return true
    end
    local lease = lease_value_of[user]
    if lease == nil then
        lease = redis.call('HGET', lease_info, user)
        lease_value_of[user] = lease
    end
    if not lease then
        return true
    end
    local ended_at = ended_written(lease)
    if ended_at == nil then
        return false
    end
    local held = held_now_of[host]
    if held == nil then
        held = math.max(0, tonumber(redis.call('HGET', held_key, host)) or 0)
        held_now_of[host] = held
    end
    return written - ended_at > kv_tokens - held
end

-- Matched depth per healthy host: the deepest block key that lists it (a chained hash covers its whole prefix).
-- Holders not seen for block_ttl seconds or evicted are pruned on the way. The walk ends at the first block nobody
-- holds.
-- The share is smoothed by one request per host, so a block seen once is not hot yet.
local depth_of = {}
local walked = 0
local deepest_uses = 0
local all_hot = true
local stale_before = now - block_ttl
for d = 1, levels do
    local key = KEYS[first_block + d - 1]
    local fields = redis.call('HGETALL', key)
    local stale = {}
    local holders = 0
    local uses = 0
    local first_seen = routed
    for i = 1, #fields, 2 do
        local field = fields[i]
        if field == '#u' then
            uses = non_negative(fields[i + 1])
        elseif field == '#t' then
            first_seen = math.min(non_negative(fields[i + 1]), routed)
        else
            local seen, at, user = parse_holder(fields[i + 1])
            if seen == nil or seen < stale_before or evicted(field, at, user) then
                stale[#stale + 1] = field
            else
                holders = holders + 1
                if healthy[field] then
                    depth_of[field] = d
                end
            end
        end
    end
    if #stale > 0 then
        redis.call('HDEL', key, unpack(stale))
    end
    if holders == 0 then
        break
    end
    walked = d
    deepest_uses = uses
    all_hot = all_hot and uses * #hosts > HOT_SHARE * holders * (routed - first_seen + #hosts)
end
-- The session's last host, if healthy, holds at least the session's last prompt.
local session_host = nil
local session_tokens = 0
if has_session then
    local last = redis.call('HMGET', session_key, 'h', 'p')
    if last[1] and healthy[last[1]] then
        session_host = last[1]
        session_tokens = math.min(non_negative(last[2]), prompt)
    end
end

local function matched_on(host)
    local matched = held_tokens(depth_of[host])
    if host == session_host then
        return math.max(matched, session_tokens)
    end
    return matched
end

-- Only a shared prefix is known (a new conversation on a hot system prompt): a host lacking it is not charged its
-- own prefill of it.
local hot_tokens = all_hot and matched_tokens(walked) or 0

-- Counts and queues per host, then the weight of uncached tokens from the mean queue.
local least_count = nil
local least_counted = {}
local count_of = {}
local queued_of = {}
local queued_sum = 0
local queued_max = 0
-- How fast recent work fades: about a conversation's turn, a response and a think time.
local RECENT_SECONDS = 5
local recent_of = {}
local recent_sum = 0
local held_of = {}
-- For the conversation-start lead (below): the counts in flight summed, and the least count and the least queue
-- among the deepest holders.
local count_sum = 0
local holder_least = nil
local holder_least_queued = nil
-- A host's recent work as of now, from its "<work> <seconds>" value.
local function recent_now(value)
    if not value then
        return 0
    end
    local work, at = string.match(value, '^(%S+) (%S+)$')
    work = non_negative(work)
    at = tonumber(at)
    if at == nil then
        return 0
    end
    return work * math.exp(-math.max(0, gateway_now - at) / RECENT_SECONDS)
end
-- Only a request that starts a conversation of its own is charged the hosts' recent work: only then is every
-- host's read (the target's is read for the update otherwise).
local recent_weight = 0
if walked == 0 and session_host == nil then
    recent_weight = recent_share
end
-- Room is counted only with the KV size known.
local waiting_of = {}
local waiting_sum = 0
local waiting_max = 0
-- Per host, computed once for every term that uses them: queued_h - drained_h, and matched_h.
local pending_of = {}
local matched_of = {}
local drain_rate = drain_tokens_per_second(parse_drain_rate(routed_state[5]))
-- Queues that drain slower than an instance prefills (the assumed rate) are held by something else: decode seats,
-- per-request costs of short prompts. The time since a first token then says little of their progress (a replayed
-- chat log at 16x its rate: +3 to +11 % mean TTFT and up to 1.8x the p99 with the drain counted there).
local prefill_bound = drain_rate >= prior_tokens_per_second
local load_hashes =
    { inflight, queue, kv_tokens > 0 and held_key, recent_weight > 0 and recent_key, waiting_key, drain_key }
hmget_in_chunks(hosts, 1, #hosts, load_hashes, function(host, count, queued, held, recent, waiting, draining_since)
    local c = non_negative(count)
    waiting_of[host] = non_negative(waiting)
    waiting_sum = waiting_sum + waiting_of[host]
    waiting_max = math.max(waiting_max, waiting_of[host])
    held_of[host] = non_negative(held)
    count_of[host] = c
    queued_of[host] = non_negative(queued)
    local drained = 0
    draining_since = tonumber(draining_since)
    if prefill_bound and queued_of[host] > 0 and draining_since then
        drained = math.min(queued_of[host], math.floor(drain_rate * math.max(0, gateway_ms - draining_since) / 1000))
    end
    pending_of[host] = queued_of[host] - drained
    matched_of[host] = matched_on(host)
    queued_sum = queued_sum + queued_of[host]
    queued_max = math.max(queued_max, queued_of[host])
    recent_of[host] = recent_now(recent)
    recent_sum = recent_sum + recent_of[host]
    count_sum = count_sum + c
    if walked > 0 and depth_of[host] == walked then
        if holder_least == nil or c < holder_least then
            holder_least = c
        end
        if holder_least_queued == nil or queued_of[host] < holder_least_queued then
            holder_least_queued = queued_of[host]
        end
    end
    if least_count == nil or c < least_count then
        least_count = c
        least_counted = { host }
    elseif c == least_count then
        least_counted[#least_counted + 1] = host
    end
end)
-- The weight of an uncached token for a queue of q requests: it waits itself, and delays the requests queued after it,
-- more than in proportion once the queue nears overload. Twice that growth while queues drain at an instance's prefill
-- rate: the overload is then the prefill's, and every token a request finds cached is time every queue gains. Not
-- when something else holds the queues (decode seats, per-request costs), where sessions kept on a host that falls
-- behind only wait (the Mooncake trace's 4,000 requests at x4: -2 to -5 % mean, -9 to -14 % p99; applied to every
-- queue, the serial engine's chat log at 16x its rate: p99 +20 to +29 %).
local DECAY = 0.999
local MAX_WEIGHT = 1e6
local PREFILL_BOUND_GROWTH = 2
local overload_growth = 1
if prefill_bound then
    overload_growth = PREFILL_BOUND_GROWTH
end
local function weight_of(q)
    local w = 1 + q
    if overload_queue_requests > 0 then
        w = w + overload_growth * (q * q / overload_queue_requests)
    end
    return math.min(w, MAX_WEIGHT)
end
-- The typical queue in requests of the recent mean work; before any, this request's prompt is the mean.
local weight = 1
local queued_requests = 0
local typical_queue = 0
local mean_work = prompt
if request_sum > 0 then
    mean_work = work_sum / request_sum
end
mean_work = math.max(1, mean_work)
if #hosts > 0 then
    -- The typical queue: the mean over the hosts but the longest. A host that falls behind (holding a prefix alone)
    -- must not make copies of its prefixes dearer the further it falls behind.
    typical_queue = queued_sum
    if #hosts > 1 then
        typical_queue = (queued_sum - queued_max) / (#hosts - 1)
    end
    queued_requests = typical_queue / mean_work
    weight = weight_of(queued_requests)
end

-- Waiting requests are charged only while the typical host (the mean over the hosts but the one with the most) has
-- fewer than two: beyond, every instance is busy, and as for the weight, the cache a request keeps matters more than
-- the order it is served in (8 prompt groups at twice their hosts' capacity: charged there, the step model's p99 rose
-- by 27 %).
local PER_REQUEST_MAX_WAITING = 2
local typical_waiting = waiting_sum
if #hosts > 1 then
    typical_waiting = (waiting_sum - waiting_max) / (#hosts - 1)
end
local per_request = 0
if typical_waiting < PER_REQUEST_MAX_WAITING then
    per_request = per_request_of(parse_fit(routed_state[4]))
end

local recent_mean = 0
if #hosts > 0 then
    recent_mean = recent_sum / #hosts
end
-- Tokens without room wait as uncached ones do, but the overload's growth of the weight is left out past this: with
-- every instance short of room the held estimate is at its roughest (prefixes that requests pin again are not in
-- it), and a large weight on it would move conversations off their caches.
local MAX_ROOM_WEIGHT = 4
local room_weight = math.min(weight, MAX_ROOM_WEIGHT)

-- How much more the count in flight weighs for a conversation that starts on busy holders of a shared prefix, how
-- far over the mean in flight its least busy holder must be, and the typical queue (q, in requests) from which it
-- applies: without a queue, a turn that comes back to a busy holder starts at once, while a copy costs its prefill.
local START_INFLIGHT_FACTOR = 3
local BUSY_HOLDER_MARGIN = 1.2
local START_MIN_QUEUE = 0.1
local inflight_weight = inflight_tokens
-- When even the least queued holder also has more prefill queued than the typical host, the holders are behind, not
-- just busy: each host's uncached tokens weigh by its own queue (never more than the fleet's weight), so a host with
-- a short queue takes the conversation for the price of its copy there. Only once the typical queue holds a request:
-- below that a holder is ahead or behind by a fraction of one, and the copy the weight allows makes the target a
-- holder of the prefix for the conversations after (8 prompt groups at their hosts' capacity: one such copy early in
-- the run raised the p99 by 8 %).
local BEHIND_MIN_QUEUE = 1
-- The parser's cap on blocks: past it the rest of a prompt folds into its last block, so a walk that reaches the
-- block before that one is the continuation of a long prefix (a long document, an agent session of hundreds of
-- messages), not a conversation of its own.
local CAPPED_LEVELS = 256
local starts_own = walked < levels and not (levels == CAPPED_LEVELS and walked == levels - 1)
local own_queue_weight = false
if queued_requests >= START_MIN_QUEUE and starts_own and deepest_uses > 1 and session_host == nil
    and holder_least ~= nil and holder_least > BUSY_HOLDER_MARGIN * count_sum / #hosts then
    inflight_weight = START_INFLIGHT_FACTOR * inflight_tokens
    own_queue_weight = queued_requests >= BEHIND_MIN_QUEUE and holder_least_queued > typical_queue
end

-- Per host, the request's tokens that would not fit next to the held KV. The room term only where some host has
-- room for the request: when none has, it waits wherever it goes, and the term would only even out the held
-- estimates at the cost of prefixes.
local short_of = {}
local some_room = false
if kv_tokens > 0 then
    for _, host in ipairs(hosts) do
        short_of[host] = math.max(0, held_of[host] + prompt - matched_of[host] - kv_tokens)
        if short_of[host] == 0 and (cap <= 0 or count_of[host] < cap) then
            some_room = true
        end
    end
end

-- A turn of a conversation of its own (its best holder holds more than the first block, and its deepest held block came
-- with at most one earlier request) pays HOLDER_PRICE times the weight for each token of that history a host lacks,
-- while the fleet is busy but not behind. Inside the Mooncake trace's bursts a holder that just took a new long prompt
-- looked dearer than a copy, and each such move prefilled the history again (at x2 51 turns left their holders, 12 for
-- SGLang's router): total work the next requests queue behind. Below HOLDER_MIN_INFLIGHT requests in flight per host
-- the fleet has room for the copy (the trace at x0.5 on 2 gateways: +5 % mean TTFT without this gate). Up to a typical
-- queue of HOLDER_MAX_QUEUE requests the weight alone still let turns go (the 4,000-request trace at x4 with 4 here: hit
-- 25.1 % against SGLang's 25.3 %, mean TTFT 7 % higher than with 8); from there it keeps prefixes, and the price only
-- adds a tail (half-streamed trace at x4: p99 +8 % at 8, +15 % without a limit). The price never exceeds how much more
-- prefill the best holder has queued than the host: it keeps a turn behind a long prompt, not behind a count of short
-- requests that each cost a fixed time (the 8-group chat on the serial backend at x1: +6 % mean TTFT without that
-- bound).
local HOLDER_PRICE = 4
local HOLDER_MIN_INFLIGHT = 2
local HOLDER_MAX_QUEUE = 8
local holder_matched = 0
local holder_queue = 0
if deepest_uses <= 1 and #hosts > 0 and count_sum >= HOLDER_MIN_INFLIGHT * #hosts
    and queued_requests < HOLDER_MAX_QUEUE then
    for _, host in ipairs(hosts) do
        if matched_of[host] > holder_matched then
            holder_matched = matched_of[host]
            holder_queue = pending_of[host]
        end
    end
    if levels == 0 or holder_matched <= matched_tokens(1) then
        holder_matched = 0
    end
end

local best_cost = nil
local ties = {}
for _, host in ipairs(hosts) do
    local c = count_of[host]
    if cap <= 0 or c < cap then
        local matched = matched_of[host]
        local hot = math.max(0, hot_tokens - matched)
        local host_weight = weight
        if own_queue_weight then
            host_weight = math.min(weight, weight_of(queued_of[host] / mean_work))
        end
        local cost = pending_of[host] + per_request * waiting_of[host]
            + host_weight * (prompt - matched) - hot
            + inflight_weight * c
            + recent_weight * (recent_of[host] - recent_mean)
        if some_room then
            cost = cost + room_weight * short_of[host]
        end
        if holder_matched > matched then
            cost = cost + math.min(HOLDER_PRICE * weight * (holder_matched - matched),
                math.max(0, holder_queue - pending_of[host]))
        end
        -- Costs within a hundredth of a token are equal: floating-point sums must not break ties at random.
        if best_cost == nil or cost < best_cost - 0.01 then
            best_cost = cost
            ties = { host }
        elseif cost <= best_cost + 0.01 then
            ties[#ties + 1] = host
        end
    end
end

if best_cost == nil then
    return { 'full', least_counted[(rand % #least_counted) + 1], least_count }
end

local target = ties[(rand % #ties) + 1]
local depth = depth_of[target] or 0
local matched = matched_of[target]
local work = math.max(0, prompt - matched)

local count
local expected_in = 0
local written = written_of[target]
if written == nil then
    written = non_negative(redis.call('HGET', written_key, target))
end
if redis.call('ZSCORE', leases, lease_id) then
    -- The lease id is already taken (a repeated call): one lease holds one count and one work amount.
    count = count_of[target]
else
    count = count_of[target] + 1
    -- Set rather than HINCRBY: a corrupt or negative stored value restarts from zero.
    redis.call('HSET', inflight, target, count)
    redis.call('HSET', queue, target, queued_of[target] + work)
    -- An empty queue begins draining with this request.
    if queued_of[target] == 0 then
        redis.call('HSET', drain_key, target, gateway_ms)
        redis.call('EXPIRE', drain_key, state_ttl)
    end
    local ahead = pending_of[target]
    local held = held_of[target]
    if kv_tokens == 0 then
        held = non_negative(redis.call('HGET', held_key, target))
    end
    redis.call('HSET', held_key, target, held + work)
    redis.call('HSET', waiting_key, target, waiting_of[target] + 1)
    local wait = '1'
    if timed then
        wait = string.format('%d,%d,%d', waiting_of[target], ahead, gateway_ms)
    else
        local overloaded = queued_requests >= UNTIL_END_QUEUE
        expected_in = first_token_in(
            parse_fit(routed_state[4]), waiting_of[target], ahead + work, overloaded)
        if expected_in ~= UNTIL_END then
            redis.call('ZADD', unseen_key, gateway_ms + expected_in, lease_id)
            redis.call('EXPIRE', unseen_key, state_ttl)
        end
    end
    hold_lease(leases, lease_info, lease_id, now + lease_ttl, work_lease(work, work, wait, target))
    written = written + work
    redis.call('HSET', written_key, target, written)
    redis.call('EXPIRE', written_key, state_ttl)
    if recent_share > 0 then
        local recent = recent_of[target]
        if recent_weight == 0 then
            recent = recent_now(redis.call('HGET', recent_key, target))
        end
        redis.call('HSET', recent_key, target, round(recent + work) .. ' ' .. gateway_now)
        redis.call('EXPIRE', recent_key, state_ttl)
    end
    redis.call('EXPIRE', inflight, state_ttl)
    redis.call('EXPIRE', queue, state_ttl)
    redis.call('EXPIRE', held_key, state_ttl)
    redis.call('EXPIRE', waiting_key, state_ttl)
    redis.call('EXPIRE', leases, state_ttl)
    redis.call('EXPIRE', lease_info, state_ttl)
end

-- The target now holds every block of this request, used after everything written to it so far: record it and the
-- use and its lease, refresh the TTL, keep at most max_holders (the least recently seen other holders go first).
local holder_value = now .. ' ' .. written .. ' ' .. lease_id
for d = 1, levels do
    local key = KEYS[first_block + d - 1]
    redis.call('HSET', key, target, holder_value)
    redis.call('HINCRBY', key, '#u', 1)
    redis.call('HSETNX', key, '#t', routed)
    redis.call('EXPIRE', key, block_ttl)
    local n = redis.call('HLEN', key) - 2
    if n > max_holders then
        local fields = redis.call('HGETALL', key)
        local others = {}
        for i = 1, #fields, 2 do
            if fields[i] ~= target and string.sub(fields[i], 1, 1) ~= '#' then
                local seen = parse_holder(fields[i + 1])
                others[#others + 1] = { fields[i], seen or 0 }
            end
        end
        table.sort(others, function(a, b)
            if a[2] ~= b[2] then
                return a[2] < b[2]
            end
            return a[1] < b[1]
        end)
        local drop = {}
        for i = 1, n - max_holders do
            drop[#drop + 1] = others[i][1]
        end
        redis.call('HDEL', key, unpack(drop))
    end
end

-- The session now continues on the target, which will hold this prompt (the answer too, but its length is unknown).
if has_session then
    redis.call('HSET', session_key, 'h', target, 'p', prompt)
    redis.call('EXPIRE', session_key, block_ttl)
end

work_sum = work_sum * DECAY + work
request_sum = request_sum * DECAY + 1
redis.call('HSET', routed_key, 'n', routed + 1, 'w', tostring(work_sum), 'c', tostring(request_sum))
redis.call('EXPIRE', routed_key, state_ttl)

-- Drop fields of hosts that left the cluster and values that fell to zero or below.
clean_up(marker, clean_interval, { inflight, queue, written_key, recent_key, held_key, waiting_key, drain_key },
    first_host)

return { 'ok', target, count, depth, matched, round(best_cost), work, expected_in }
