/**
 * The two Lua scripts behind rate limits and quotas. Each runs atomically in Redis, so limits hold
 * across any number of proxy replicas sharing one Redis.
 *
 * Rate limits are sliding-window counters (the previous fixed window weighted by how much of it
 * still overlaps the sliding window, plus the current one). Quotas are a hash of `spent` (settled
 * nano-USD) and `reserved` (nano-USD held by requests in flight). A periodic budget is the same
 * hash under a key named after its period's start, expiring a day after the period ends, so a new
 * period starts from zero without anything resetting it.
 */

/**
 * Books settled requests (one key's, summed): tokens into the token window, the cost into `spent`
 * and the release of their reservations from `reserved`, on the quota and/or the budget of the
 * period they were admitted in. Shared by SETTLE_SCRIPT and ADMIT_SCRIPT (which carries the
 * key's pending settlement in the same call, applied before its own check).
 * Amounts go to HINCRBY as the caller's integer strings: a Lua number would print as "-0" for a
 * request that reserved nothing, or in exponent form past 14 digits, and Redis refuses both.
 */
const SETTLE_FUNCTION = `
local function settle_counters(token_key, quota_key, budget_key, tokens, window, release, cost, has_quota, has_budget, budget_expiry)
  if tokens > 0 then
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
  if has_quota == '1' then settle(quota_key) end
  if has_budget == '1' then
    settle(budget_key)
    redis.call('PEXPIREAT', budget_key, budget_expiry)
  end
end
`;

/**
 * KEYS: requests now, requests before, tokens now, tokens before, quota, budget of this period,
 *       then the pending settlement's token window and budget (see below).
 * Amounts written with HINCRBY are passed on as the caller's integer strings (see SETTLE_FUNCTION).
 * ARGV: rpm (0 = none), tpm (0 = none), ms into the window, window ms, quota limit (-1 = none),
 *       reservation (nano-USD), budget limit (-1 = none), budget expiry (epoch ms), then whether a
 *       settlement of this key rides along (1/0) and its tokens, release, cost, has-quota,
 *       has-budget and budget expiry (SETTLE_SCRIPT's ARGV without the window). The settlement is
 *       booked first, so the check sees it: one call instead of two, and never a refusal because
 *       of this proxy's own finished requests.
 * Returns {verdict, requests used, tokens used, quota spent + reserved}; verdict 0 = admitted,
 * 1 = requests limited, 2 = tokens limited, 3 = quota exhausted, 4 = budget exhausted.
 */
export const ADMIT_SCRIPT = `${SETTLE_FUNCTION}
if ARGV[9] == '1' then
  settle_counters(KEYS[7], KEYS[5], KEYS[8], tonumber(ARGV[10]), tonumber(ARGV[4]), ARGV[11], ARGV[12], ARGV[13], ARGV[14], tonumber(ARGV[15]))
end
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
  requests = used(KEYS[1], KEYS[2])
  if requests + 1 > rpm then return {1, math.floor(requests), 0, 0} end
end
local tokens = 0
if tpm > 0 then
  tokens = used(KEYS[3], KEYS[4])
  if tokens >= tpm then return {2, math.floor(requests), math.floor(tokens), 0} end
end
local budget = tonumber(ARGV[7])
local function committed_of(key)
  local state = redis.call('HMGET', key, 'spent', 'reserved')
  return (tonumber(state[1]) or 0) + (tonumber(state[2]) or 0)
end
local committed = 0
-- Admitted while anything is left: overshoot is bounded by one request's reservation.
if limit >= 0 then
  committed = committed_of(KEYS[5])
  if committed >= limit then return {3, math.floor(requests), math.floor(tokens), committed} end
end
if budget >= 0 then
  local period_committed = committed_of(KEYS[6])
  if period_committed >= budget then return {4, math.floor(requests), math.floor(tokens), period_committed} end
  redis.call('HINCRBY', KEYS[6], 'reserved', ARGV[6])
  redis.call('PEXPIREAT', KEYS[6], tonumber(ARGV[8]))
end
if limit >= 0 then redis.call('HINCRBY', KEYS[5], 'reserved', ARGV[6]) end
if rpm > 0 then
  redis.call('INCR', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], window * 2)
end
return {0, math.floor(requests) + 1, math.floor(tokens), committed + reservation}
`;

/**
 * KEYS: tokens now, quota, budget of the period the request was admitted in. ARGV: tokens used,
 * window ms, reservation to release as a negative integer string, cost to add (nano-USD), whether the key has a quota (1/0),
 * whether it has a budget (1/0), budget expiry (epoch ms).
 */
export const SETTLE_SCRIPT = `${SETTLE_FUNCTION}
settle_counters(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7]))
return 1
`;
