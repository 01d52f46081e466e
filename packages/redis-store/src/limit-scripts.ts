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
 * KEYS: requests now, requests before, tokens now, tokens before, quota, budget of this period.
 * Amounts written with HINCRBY are passed on as the caller's integer strings (see SETTLE_SCRIPT).
 * ARGV: rpm (0 = none), tpm (0 = none), ms into the window, window ms, quota limit (-1 = none),
 *       reservation (nano-USD), budget limit (-1 = none), budget expiry (epoch ms).
 * Returns {verdict, requests used, tokens used, quota spent + reserved}; verdict 0 = admitted,
 * 1 = requests limited, 2 = tokens limited, 3 = quota exhausted, 4 = budget exhausted.
 */
export const ADMIT_SCRIPT = `
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
export const SETTLE_SCRIPT = `
local tokens = tonumber(ARGV[1])
if tokens > 0 then
  redis.call('INCRBY', KEYS[1], tokens)
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
end
local function settle(key)
  -- A rebuild from the ledger zeroes reservations; one released after it must not go negative.
  -- Amounts go to HINCRBY as the caller's integer strings: a Lua number would print as "-0" for a
  -- request that reserved nothing, or in exponent form past 14 digits, and Redis refuses both.
  if redis.call('HINCRBY', key, 'reserved', ARGV[3]) < 0 then
    redis.call('HSET', key, 'reserved', 0)
  end
  redis.call('HINCRBY', key, 'spent', ARGV[4])
end
if ARGV[5] == '1' then settle(KEYS[2]) end
if ARGV[6] == '1' then
  settle(KEYS[3])
  redis.call('PEXPIREAT', KEYS[3], tonumber(ARGV[7]))
end
return 1
`;
