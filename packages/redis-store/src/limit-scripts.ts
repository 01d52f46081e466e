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
local function settle_counters(base, token_window, budget_suffix, tokens, window, release, cost, has_quota, has_budget, budget_expiry)
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

/**
 * KEYS: the key's counter base (`redisKeys.limits`); the counters are named from it, as
 * redis-keys.ts names them: `:rpm:<window>`, `:tpm:<window>`, `:quota`, `:budget:<period>:<start>`
 * (one hash tag, one cluster slot). Small arguments: one key instead of eight.
 * Amounts written with HINCRBY are passed on as the caller's integer strings (see SETTLE_FUNCTION).
 * ARGV: rpm (0 = none), tpm (0 = none), ms into the window, window ms, quota limit (-1 = none),
 *       reservation (nano-USD), budget limit (-1 = none), budget expiry (epoch ms), the window's
 *       number, the budget's `<period>:<start>`, then whether a settlement of this key rides along
 *       (1/0) and, if so, its token window, budget `<period>:<start>`, tokens, release, cost,
 *       has-quota, has-budget and budget expiry. The settlement is booked first, so the check sees
 *       it: one call instead of two, and never a refusal because of this proxy's own finished
 *       requests.
 * Returns {verdict, requests used, tokens used, quota spent + reserved}; verdict 0 = admitted,
 * 1 = requests limited, 2 = tokens limited, 3 = quota exhausted, 4 = budget exhausted.
 */
export const ADMIT_SCRIPT = `${SETTLE_FUNCTION}
local base = KEYS[1]
if ARGV[11] == '1' then
  settle_counters(base, ARGV[12], ARGV[13], tonumber(ARGV[14]), tonumber(ARGV[4]), ARGV[15], ARGV[16], ARGV[17], ARGV[18], tonumber(ARGV[19]))
end
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
  if requests + 1 > rpm then return {1, math.floor(requests), 0, 0} end
end
local tokens = 0
if tpm > 0 then
  tokens = used(tokens_now, tokens_before)
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
  committed = committed_of(quota_key)
  if committed >= limit then return {3, math.floor(requests), math.floor(tokens), committed} end
end
if budget >= 0 then
  local period_committed = committed_of(budget_key)
  if period_committed >= budget then return {4, math.floor(requests), math.floor(tokens), period_committed} end
  redis.call('HINCRBY', budget_key, 'reserved', ARGV[6])
  redis.call('PEXPIREAT', budget_key, tonumber(ARGV[8]))
end
if limit >= 0 then redis.call('HINCRBY', quota_key, 'reserved', ARGV[6]) end
if rpm > 0 then
  redis.call('INCR', requests_now)
  redis.call('PEXPIRE', requests_now, window * 2)
end
return {0, math.floor(requests) + 1, math.floor(tokens), committed + reservation}
`;

/**
 * KEYS: the key's counter base (as ADMIT_SCRIPT). ARGV: window ms, then the settlement as ADMIT_SCRIPT
 * carries it: the token window's number, the budget's `<period>:<start>` (of the period the
 * requests were admitted in), tokens used, reservation to release as a negative integer string,
 * cost to add (nano-USD), whether the key has a quota (1/0), whether it has a budget (1/0), budget
 * expiry (epoch ms).
 */
export const SETTLE_SCRIPT = `${SETTLE_FUNCTION}
settle_counters(KEYS[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[1]), ARGV[5], ARGV[6], ARGV[7], ARGV[8], tonumber(ARGV[9]))
return 1
`;
