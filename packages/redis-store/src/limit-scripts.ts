/**
 * The two Lua scripts behind rate limits and quotas. Each runs atomically in Redis, so limits hold
 * across any number of proxy replicas sharing one Redis.
 *
 * Rate limits are sliding-window counters (the previous fixed window weighted by how much of it
 * still overlaps the sliding window, plus the current one). Quotas are a hash of `spent` (settled
 * nano-USD) and `reserved` (nano-USD held by requests in flight). A periodic budget is the same
 * hash under a key named after its period's start, expiring a day after the period ends, so a new
 * period starts from zero without anything resetting it.
 *
 * Leases: an admission may also grant its process a slice of the key's headroom (requests counted
 * in the window at once, and nano-USD held in `:leases`, one field per lease, expiring from
 * `:lease-ends` if the process dies), which the process then admits from without a call. The
 * quota and budget checks count every live lease as reserved. A lease never takes more than an
 * eighth of what is left (LEASE_SHARE), so near a limit admissions are one call each again.
 */

/**
 * Books settled requests (one key's, summed): tokens into the token window, the cost into `spent`
 * and the release of their reservations from `reserved`, on the quota and/or the budget of the
 * period they were admitted in; and what a lease gives back (its slice, shrunk by `lease_release`,
 * and the requests it counted and did not use, off the window `requests_window`). Shared by SETTLE_SCRIPT and ADMIT_SCRIPT (which carries the
 * key's pending settlement in the same call, applied before its own check).
 * Amounts go to HINCRBY as the caller's integer strings: a Lua number would print as "-0" for a
 * request that reserved nothing, or in exponent form past 14 digits, and Redis refuses both.
 */
const SETTLE_FUNCTION = `
local function settle_counters(base, token_window, budget_suffix, tokens, window, release, cost, has_quota, has_budget, budget_expiry, lease_id, lease_release, requests_back, requests_window)
  if lease_id ~= '' then
    -- A lease's slice shrinks as its process gives it back; gone at zero (or already expired).
    local leases = base .. ':leases'
    if redis.call('HINCRBY', leases, lease_id, lease_release) <= 0 then
      redis.call('HDEL', leases, lease_id)
      redis.call('ZREM', base .. ':lease-ends', lease_id)
    end
  end
  if tonumber(requests_back) > 0 then
    -- Requests a lease counted and did not use; a window already gone is not recreated.
    local requests_key = base .. ':rpm:' .. requests_window
    if redis.call('DECRBY', requests_key, requests_back) <= 0 then redis.call('DEL', requests_key) end
  end
  if tokens > 0 then
    local token_key = base .. ':tpm:' .. token_window
    redis.call('INCRBY', token_key, tokens)
    redis.call('PEXPIRE', token_key, window * 2)
  end
  local function settle(key)
    -- A rebuild from the ledger zeroes reservations; one released after it must not go negative.
    if redis.call('HINCRBY', key, 'reserved', release) < 0 then
      redis.call('HSET', key, 'reserved', 0)
    end
    redis.call('HINCRBY', key, 'spent', cost)
  end
  if has_quota == '1' then settle(base .. ':quota') end
  if has_budget == '1' then
    local budget_key = base .. ':budget:' .. budget_suffix
    settle(budget_key)
    redis.call('PEXPIREAT', budget_key, budget_expiry)
  end
end
`;

/** A lease takes at most this share of what is left of a limit: 1/LEASE_SHARE. */
export const LEASE_SHARE = 8;

/**
 * KEYS: the key's counter base (`redisKeys.limits`); the counters are named from it, as
 * redis-keys.ts names them: `:rpm:<window>`, `:tpm:<window>`, `:quota`, `:budget:<period>:<start>`,
 * `:leases`, `:lease-ends` (one hash tag, one cluster slot). Small arguments: one key, not eight.
 * Amounts written with HINCRBY are passed on as the caller's integer strings (see SETTLE_FUNCTION).
 * ARGV: rpm (0 = none), tpm (0 = none), ms into the window, window ms, quota limit (-1 = none),
 *       reservation (nano-USD), budget limit (-1 = none), budget expiry (epoch ms), the window's
 *       number, the budget's `<period>:<start>`;
 *       the lease asked for: requests (below 2 = none), nano-USD, its id, when Redis drops it
 *       (epoch ms; its process gives it back before then), and whether the call admits a request
 *       of its own (1) or only renews the process's lease ahead of its end (0: when no lease is
 *       granted nothing is counted or reserved, and a lease's requests are all left for later);
 *       then whether a settlement of this key rides along (1/0) and, if so, its token window,
 *       budget `<period>:<start>`, tokens, release, cost, has-quota, has-budget, budget expiry,
 *       lease id ('' = none), lease release, requests given back and their window. The settlement
 *       is booked first, so the check sees it: one call instead of two, and never a refusal
 *       because of this proxy's own finished requests.
 * Returns {verdict, requests used, tokens used, quota spent + reserved, requests granted, nano-USD
 * granted}; verdict 0 = admitted, 1 = requests limited, 2 = tokens limited, 3 = quota exhausted,
 * 4 = budget exhausted. More than one request granted is a lease: the requests are counted now,
 * the nano-USD (when the key has a quota or a budget) are held as the lease's and cover this
 * request's reservation, which is then not added to `reserved`.
 */
export const ADMIT_SCRIPT = `${SETTLE_FUNCTION}
local base = KEYS[1]
if ARGV[16] == '1' then
  settle_counters(base, ARGV[17], ARGV[18], tonumber(ARGV[19]), tonumber(ARGV[4]), ARGV[20], ARGV[21], ARGV[22], ARGV[23], tonumber(ARGV[24]), ARGV[25], ARGV[26], ARGV[27], ARGV[28])
end
local own = ARGV[15] == '1'
local current = tonumber(ARGV[9])
local requests_now = base .. ':rpm:' .. ARGV[9]
local requests_before = base .. ':rpm:' .. string.format('%d', current - 1)
local tokens_now = base .. ':tpm:' .. ARGV[9]
local tokens_before = base .. ':tpm:' .. string.format('%d', current - 1)
local quota_key = base .. ':quota'
local budget_key = base .. ':budget:' .. ARGV[10]
local rpm = tonumber(ARGV[1])
local tpm = tonumber(ARGV[2])
local elapsed = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
local reservation = tonumber(ARGV[6])
local overlap = (window - elapsed) / window
local function used(now_key, before_key)
  return (tonumber(redis.call('GET', now_key) or '0')) + (tonumber(redis.call('GET', before_key) or '0')) * overlap
end
local requests = 0
if rpm > 0 then
  requests = used(requests_now, requests_before)
  if requests + 1 > rpm then return {1, math.floor(requests), 0, 0, 0, 0} end
end
local tokens = 0
if tpm > 0 then
  tokens = used(tokens_now, tokens_before)
  if tokens >= tpm then return {2, math.floor(requests), math.floor(tokens), 0, 0, 0} end
end
local budget = tonumber(ARGV[7])
local leases_key = base .. ':leases'
local lease_ends_key = base .. ':lease-ends'
local leased = 0
local now = current * window + elapsed
if limit >= 0 or budget >= 0 then
  -- Every live lease's slice counts as reserved; those whose process never gave them back expire.
  local expired = redis.call('ZRANGEBYSCORE', lease_ends_key, '-inf', now)
  if #expired > 0 then
    redis.call('HDEL', leases_key, unpack(expired))
    redis.call('ZREMRANGEBYSCORE', lease_ends_key, '-inf', now)
  end
  for _, slice in ipairs(redis.call('HVALS', leases_key)) do leased = leased + tonumber(slice) end
end
local function committed_of(key)
  local state = redis.call('HMGET', key, 'spent', 'reserved')
  return (tonumber(state[1]) or 0) + (tonumber(state[2]) or 0) + leased
end
local committed = 0
-- Admitted while anything is left: overshoot is bounded by one request's reservation.
if limit >= 0 then
  committed = committed_of(quota_key)
  if committed >= limit then return {3, math.floor(requests), math.floor(tokens), committed, 0, 0} end
end
local period_committed = 0
if budget >= 0 then
  period_committed = committed_of(budget_key)
  if period_committed >= budget then return {4, math.floor(requests), math.floor(tokens), period_committed, 0, 0} end
end
-- The lease: at most LEASE_SHARE-th of what is left of each limit, none near a limit.
local granted = 1
local slice = 0
local asked = tonumber(ARGV[11])
if asked > 1 then
  if rpm > 0 then asked = math.min(asked, math.floor((rpm - requests) / ${LEASE_SHARE})) end
  if tpm > 0 and tokens >= tpm - tpm / ${LEASE_SHARE} then asked = 0 end
  if asked > 1 and (limit >= 0 or budget >= 0) then
    local left = math.huge
    if limit >= 0 then left = limit - committed end
    if budget >= 0 then left = math.min(left, budget - period_committed) end
    slice = math.min(tonumber(ARGV[12]), math.floor(left / ${LEASE_SHARE}))
    if slice < reservation then asked = 0 end
  end
  if asked > 1 then granted = asked else slice = 0 end
end
if slice > 0 then
  local drop_at = tonumber(ARGV[14])
  redis.call('HSET', leases_key, ARGV[13], string.format('%d', slice))
  redis.call('ZADD', lease_ends_key, drop_at, ARGV[13])
  -- The hash lives as long as its latest lease (never shortened by another process's clock).
  local ttl = redis.call('PTTL', leases_key)
  if ttl < 0 or now + ttl < drop_at then
    redis.call('PEXPIREAT', leases_key, drop_at)
    redis.call('PEXPIREAT', lease_ends_key, drop_at)
  end
elseif granted == 1 then
  -- A renewal that got no lease admits nothing: nothing to count or hold.
  if not own then return {0, math.floor(requests), math.floor(tokens), committed, 0, 0} end
  if budget >= 0 then
    redis.call('HINCRBY', budget_key, 'reserved', ARGV[6])
    redis.call('PEXPIREAT', budget_key, tonumber(ARGV[8]))
  end
  if limit >= 0 then redis.call('HINCRBY', quota_key, 'reserved', ARGV[6]) end
end
if rpm > 0 then
  redis.call('INCRBY', requests_now, granted)
  redis.call('PEXPIRE', requests_now, window * 2)
end
return {0, math.floor(requests) + 1, math.floor(tokens), committed + reservation, granted, slice}
`;

/**
 * KEYS: the key's counter base (as ADMIT_SCRIPT). ARGV: window ms, then the settlement as ADMIT_SCRIPT
 * carries it: the token window's number, the budget's `<period>:<start>` (of the period the
 * requests were admitted in), tokens used, reservation to release as a negative integer string,
 * cost to add (nano-USD), whether the key has a quota (1/0), whether it has a budget (1/0), budget
 * expiry (epoch ms), lease id ('' = none), the lease's release as a negative integer string, requests
 * given back, their window's number.
 */
export const SETTLE_SCRIPT = `${SETTLE_FUNCTION}
settle_counters(KEYS[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[1]), ARGV[5], ARGV[6], ARGV[7], ARGV[8], tonumber(ARGV[9]), ARGV[10], ARGV[11], ARGV[12], ARGV[13])
return 1
`;
