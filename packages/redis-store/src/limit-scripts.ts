/**
 * The two Lua scripts behind rate limits and quotas. Each runs atomically in Redis, so limits hold
 * across any number of proxy replicas sharing one Redis.
 *
 * Rate limits are sliding-window counters (the previous fixed window weighted by how much of it
 * still overlaps the sliding window, plus the current one). Quotas are a hash of `spent` (settled
 * nano-USD) and `reserved` (nano-USD held by requests in flight).
 */

/**
 * KEYS: requests now, requests before, tokens now, tokens before, quota.
 * ARGV: rpm (0 = none), tpm (0 = none), ms into the window, window ms, quota limit (-1 = none),
 *       reservation (nano-USD).
 * Returns {verdict, requests used, tokens used, quota spent + reserved}; verdict 0 = admitted,
 * 1 = requests limited, 2 = tokens limited, 3 = quota exhausted.
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
local committed = 0
if limit >= 0 then
  local state = redis.call('HMGET', KEYS[5], 'spent', 'reserved')
  committed = (tonumber(state[1]) or 0) + (tonumber(state[2]) or 0)
  -- Admitted while anything is left: overshoot is bounded by one request's reservation.
  if committed >= limit then return {3, math.floor(requests), math.floor(tokens), committed} end
  redis.call('HINCRBY', KEYS[5], 'reserved', reservation)
end
if rpm > 0 then
  redis.call('INCR', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], window * 2)
end
return {0, math.floor(requests) + 1, math.floor(tokens), committed + reservation}
`;

/**
 * KEYS: tokens now, quota. ARGV: tokens used, window ms, reservation to release, cost to add
 * (nano-USD), whether the key has a quota (1/0).
 */
export const SETTLE_SCRIPT = `
local tokens = tonumber(ARGV[1])
if tokens > 0 then
  redis.call('INCRBY', KEYS[1], tokens)
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
end
if ARGV[5] == '1' then
  -- A rebuild from the ledger zeroes reservations; one released after it must not go negative.
  if redis.call('HINCRBY', KEYS[2], 'reserved', -tonumber(ARGV[3])) < 0 then
    redis.call('HSET', KEYS[2], 'reserved', 0)
  end
  redis.call('HINCRBY', KEYS[2], 'spent', tonumber(ARGV[4]))
end
return 1
`;
