/**
 * The Lua scripts behind rate limits and quotas. Each runs atomically in Redis, so limits hold
 * across any number of proxy replicas sharing one Redis.
 *
 * Rate limits are sliding-window counters (the previous fixed window weighted by how much of it
 * still overlaps the sliding window, plus the current one). Quotas are a hash of `spent` (settled
 * nano-USD) and `reserved` (nano-USD held by requests in flight). A periodic budget is the same
 * hash under a key named after its period's start, expiring a day after the period ends, so a new
 * period starts from zero without anything resetting it.
 *
 * A request is admitted only if it fits (contract section 14): its reservation (the most it can
 * cost) in what is left of the quota and of the budget, and its tokens (input estimate + output
 * bound) in the TPM window together with the tokens of every request still in flight. Those are
 * held in `:tokens-held`, one field per holder: a process's own admissions under its tag and
 * period (`<tag>.t<period>`), a lease's slice under the lease's id (`<tag>.<n>`);
 * `:tokens-held-ends` says when Redis drops each one if its process dies (a period's field is
 * pushed on by each admission in it).
 *
 * Leases: an admission may also grant its process a slice of the key's headroom (requests counted
 * in the window at once, nano-USD held in `:leases` and tokens in `:tokens-held`, one field per
 * lease, expiring from `:lease-ends` / `:tokens-held-ends` if the process dies), which the process
 * then admits from without a call. Every live slice counts as committed. A lease never takes more
 * than an eighth of what is left (LEASE_SHARE), so near a limit admissions are one call each again.
 */

/** A lease takes at most this share of what is left of a limit: 1/LEASE_SHARE. */
export const LEASE_SHARE = 8;

/**
 * How long Redis keeps a lease's slice after the lease ends, and a process's in-flight tokens
 * after its latest admission, for the requests still in flight; a process that dies loses its
 * holds at the latest then (the sweeper drops them sooner: `dropProcessLeases`).
 */
export const LEASE_HOLD_MS = 15 * 60_000;

/** How long an orphan's release is remembered, so a sweeper that retries never releases it twice. */
export const ORPHAN_MARK_MS = 2 * 86_400_000;

/**
 * Books settled requests (one key's, summed): tokens into the token window, the cost into `spent`
 * and the release of their reservations from `reserved`, on the quota and/or the budget of the
 * period they were admitted in; what a lease gives back (its slice, shrunk by `lease_release`, and
 * the requests it counted and did not use, off the window `requests_window`); and the in-flight
 * tokens `tokens_holder` (a process tag or a lease id) gives back (`tokens_release`). Shared by
 * every script that settles (ADMIT_SCRIPT carries the key's pending settlement in the same call,
 * applied before its own check).
 * Amounts go to HINCRBY as the caller's integer strings: a Lua number would print as "-0" for a
 * request that reserved nothing, or in exponent form past 14 digits, and Redis refuses both.
 */
const SETTLE_FUNCTION = `
local function give_back(hash_key, ends_key, field, amount)
  -- A holder's share shrinks as it gives back; gone at zero (or already expired, or dropped).
  if redis.call('HINCRBY', hash_key, field, amount) <= 0 then
    redis.call('HDEL', hash_key, field)
    redis.call('ZREM', ends_key, field)
  end
end
local function settle_counters(base, token_window, budget_suffix, tokens, window, release, cost, has_quota, has_budget, budget_expiry, lease_id, lease_release, requests_back, requests_window, tokens_holder, tokens_release, customer_text)
  if lease_id ~= '' then give_back(base .. ':leases', base .. ':lease-ends', lease_id, lease_release) end
  if tokens_holder ~= '' then give_back(base .. ':tokens-held', base .. ':tokens-held-ends', tokens_holder, tokens_release) end
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
  -- The key's customer (same slot): its wallet, its budget's period, its plan's USD windows (each
  -- only while it is still the window the requests were admitted in: a window gone is not reopened).
  if customer_text ~= nil and customer_text ~= '' then
    local customer = cjson.decode(customer_text)
    if customer.w == 1 then settle(customer.c .. ':wallet') end
    if customer.bs ~= nil then
      local customer_budget = customer.c .. ':budget:' .. customer.bs
      settle(customer_budget)
      redis.call('PEXPIREAT', customer_budget, tonumber(customer.be))
    end
    for _, plan_window in ipairs(customer.p or {}) do
      local window_key = customer.c .. ':' .. plan_window.k
      if redis.call('HGET', window_key, 'start') == plan_window.s then settle(window_key) end
    end
  end
end
`;

/**
 * SETTLE_FUNCTION's call on the 15 settlement arguments from ARGV[first] (after the counter base
 * and the window ms); the 15th is the customer's part (settlement.ts, '' = none).
 */
function settleCall(first: number, windowMs: string): string {
  const at = (offset: number) => `ARGV[${first + offset}]`;
  return `settle_counters(base, ${at(0)}, ${at(1)}, tonumber(${at(2)}), ${windowMs}, ${at(3)}, ${at(4)}, ${at(5)}, ${at(6)}, tonumber(${at(7)}), ${at(8)}, ${at(9)}, ${at(10)}, ${at(11)}, ${at(12)}, ${at(13)}, ${at(14)})`;
}

/** A plan window's hash lives this long past its end, so a late settlement still finds it. */
export const PLAN_WINDOW_GRACE_MS = 86_400_000;

/**
 * Exact money in Lua (shared by the admission script and the wallet's debit, wallet.ts).
 */
export const MONEY_LUA = `-- nano-USD past 2^53 (quotas reach 10^18) are not exact in a Lua number: money is added and
-- compared as two limbs of nine digits, {high, low}, value = high * LIMB + low.
local LIMB = 1000000000
local function limbs(text)
  local sign = 1
  if string.sub(text, 1, 1) == '-' then sign = -1; text = string.sub(text, 2) end
  local digits = #text
  local high = 0
  if digits > 9 then high = tonumber(string.sub(text, 1, digits - 9)) end
  return {sign * high, sign * tonumber(string.sub(text, math.max(1, digits - 8)))}
end
local function plus(a, b) return {a[1] + b[1], a[2] + b[2]} end
-- a - b with 0 <= low < LIMB: its sign is its high limb's, or its low limb's when that is 0.
local function minus(a, b)
  local high, low = a[1] - b[1], a[2] - b[2]
  local carry = math.floor(low / LIMB)
  return {high + carry, low - carry * LIMB}
end
local function sign_of(a) if a[1] ~= 0 then return a[1] end return a[2] end
local function approx(a) return a[1] * LIMB + a[2] end`;

/**
 * KEYS: the key's counter base (`redisKeys.limits`); the counters are named from it, as
 * redis-keys.ts names them: `:rpm:<window>`, `:tpm:<window>`, `:quota`, `:budget:<period>:<start>`,
 * `:leases`, `:lease-ends`, `:tokens-held`, `:tokens-held-ends` (one hash tag, one cluster slot).
 * Small arguments: one key, not ten. Amounts written with HINCRBY are passed on as the caller's
 * integer strings (see SETTLE_FUNCTION).
 * ARGV: 1 rpm (0 = none), 2 tpm (0 = none), 3 ms into the window, 4 window ms, 5 quota limit
 *       (-1 = none), 6 reservation (nano-USD), 7 budget limit (-1 = none), 8 budget expiry (epoch
 *       ms), 9 the window's number, 10 the budget's `<period>:<start>`;
 *       the lease asked for: 11 requests (below 2 = none), 12 nano-USD, 13 its id, 14 when Redis
 *       drops it (epoch ms; its process gives it back before then), 15 whether the call admits a
 *       request of its own (1) or only renews the process's lease ahead of its end (0: when no
 *       lease is granted nothing is counted or held, and a lease's requests are all left for later);
 *       16 the request's tokens (input estimate + output bound; held in flight until it settles),
 *       17 the holder of this process's own admissions' tokens (`<tag>.t<period>`);
 *       18 whether a settlement of this key rides along (1/0) and, if so, 19-33 its token window,
 *       budget `<period>:<start>`, tokens, release, cost, has-quota, has-budget, budget expiry,
 *       lease id ('' = none), lease release, requests given back and their window, tokens holder
 *       ('' = none) and its release, the customer's part ('' = none). The settlement is booked first, so the check sees it: one call
 *       instead of two, and never a refusal because of this proxy's own finished requests;
 *       last (19 or 34), for a key of a customer with limits, the customer's limits (JSON, see
 *       limit-store.ts): absent for every other key.
 * Returns {verdict, requests used, tokens used (window + in flight, this request's included),
 * quota committed, requests granted, nano-USD granted (an integer string), tokens granted, and for
 * a customer's key the plan windows' starts (verdict 0, "s1,s2") or the retry ms (verdict 7)}; verdict 0 = admitted,
 * 1 = requests limited, 2 = tokens limited, 3 = quota exhausted, 4 = budget exhausted, 5 = the
 * customer's budget exhausted, 6 = the customer's balance exhausted, 7 = a plan window full. More than
 * one request granted is a lease: the requests are counted now, the nano-USD and tokens (when the
 * key has such limits) are held as the lease's and cover this request's, which are then not
 * added to `reserved` / the process's tokens.
 */
export const ADMIT_SCRIPT = `${SETTLE_FUNCTION}
local base = KEYS[1]
if ARGV[18] == '1' then
  ${settleCall(19, "tonumber(ARGV[4])")}
end
local own = ARGV[15] == '1'
-- The key's customer's limits (a JSON object, see limit-store.ts customerArgument), last: absent
-- for a key without a customer, which then costs nothing more.
local customer = nil
local customer_text = ARGV[19]
if ARGV[18] == '1' then customer_text = ARGV[34] end
if customer_text ~= nil and customer_text ~= '' then customer = cjson.decode(customer_text) end
local current = tonumber(ARGV[9])
local requests_now = base .. ':rpm:' .. ARGV[9]
local requests_before = base .. ':rpm:' .. string.format('%d', current - 1)
local tokens_now = base .. ':tpm:' .. ARGV[9]
local tokens_before = base .. ':tpm:' .. string.format('%d', current - 1)
local quota_key = base .. ':quota'
local budget_key = base .. ':budget:' .. ARGV[10]
local leases_key = base .. ':leases'
local lease_ends_key = base .. ':lease-ends'
local held_key = base .. ':tokens-held'
local held_ends_key = base .. ':tokens-held-ends'
local rpm = tonumber(ARGV[1])
local tpm = tonumber(ARGV[2])
local elapsed = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
local budget = tonumber(ARGV[7])
local request_tokens = tonumber(ARGV[16])
local now = current * window + elapsed
local overlap = (window - elapsed) / window
local function used(now_key, before_key)
  return (tonumber(redis.call('GET', now_key) or '0')) + (tonumber(redis.call('GET', before_key) or '0')) * overlap
end
${MONEY_LUA}
-- What the live holders of a hash hold (each as stored); those whose process never gave them back expire first.
local function live_holds(hash_key, ends_key)
  local expired = redis.call('ZRANGEBYSCORE', ends_key, '-inf', now)
  if #expired > 0 then
    redis.call('HDEL', hash_key, unpack(expired))
    redis.call('ZREMRANGEBYSCORE', ends_key, '-inf', now)
  end
  return redis.call('HVALS', hash_key)
end
-- A holder's share is kept until drop_at; the hash lives as long as its latest holder (never
-- shortened by another process's clock).
local function keep_until(hash_key, ends_key, field, drop_at)
  redis.call('ZADD', ends_key, drop_at, field)
  local ttl = redis.call('PTTL', hash_key)
  if ttl < 0 or now + ttl < drop_at then
    redis.call('PEXPIREAT', hash_key, drop_at)
    redis.call('PEXPIREAT', ends_key, drop_at)
  end
end
local requests = 0
if rpm > 0 then
  requests = used(requests_now, requests_before)
  if requests + 1 > rpm then return {1, math.floor(requests), 0, 0, 0, 0, 0} end
end
-- Tokens: the window's settled ones, every request in flight (and lease slice), and this one must fit.
local tokens = 0
if tpm > 0 then
  tokens = used(tokens_now, tokens_before)
  for _, held in ipairs(live_holds(held_key, held_ends_key)) do tokens = tokens + tonumber(held) end
  if tokens + request_tokens > tpm then return {2, math.floor(requests), math.floor(tokens), 0, 0, 0, 0} end
end
local reservation = limbs(ARGV[6])
local leased = {0, 0}
if limit >= 0 or budget >= 0 then
  for _, slice in ipairs(live_holds(leases_key, lease_ends_key)) do leased = plus(leased, limbs(slice)) end
end
local function committed_of(key)
  local state = redis.call('HMGET', key, 'spent', 'reserved')
  return plus(plus(limbs(state[1] or '0'), limbs(state[2] or '0')), leased)
end
-- Admitted only if the whole reservation fits in what is left (and something is: a request that
-- reserves nothing is refused on a spent key too). left: what is left of the tighter limit.
local left = nil
local function fits(committed, limit_text)
  local room = minus(limbs(limit_text), committed)
  if sign_of(room) <= 0 or sign_of(minus(room, reservation)) < 0 then return false end
  if left == nil or sign_of(minus(room, left)) < 0 then left = room end
  return true
end
local committed = {0, 0}
if limit >= 0 then
  committed = committed_of(quota_key)
  if not fits(committed, ARGV[5]) then return {3, math.floor(requests), math.floor(tokens), approx(committed), 0, 0, 0} end
end
if budget >= 0 then
  local period_committed = committed_of(budget_key)
  if not fits(period_committed, ARGV[7]) then return {4, math.floor(requests), math.floor(tokens), approx(period_committed), 0, 0, 0} end
end
-- The customer's limits, over all its keys: its budget, its wallet (credited - spent - reserved, a
-- quota), its plan's rolling windows (a window opens at its first request and lasts its length;
-- past its end the next request opens a new one). 5: budget, 6: balance, 7: plan window (its
-- retry in ms, the window's end, last).
local plan_fresh = {}
local plan_starts = {}
if customer ~= nil then
  local customer_base = customer.c
  local function committed_at(key)
    local state = redis.call('HMGET', key, 'spent', 'reserved')
    return plus(limbs(state[1] or '0'), limbs(state[2] or '0'))
  end
  if customer.b ~= nil then
    local customer_committed = committed_at(customer_base .. ':budget:' .. customer.bs)
    if not fits(customer_committed, customer.b) then return {5, math.floor(requests), math.floor(tokens), approx(customer_committed), 0, 0, 0, 0} end
  end
  if customer.w == 1 then
    local wallet_key = customer_base .. ':wallet'
    local wallet_committed = committed_at(wallet_key)
    if not fits(wallet_committed, redis.call('HGET', wallet_key, 'credited') or '0') then return {6, math.floor(requests), math.floor(tokens), approx(wallet_committed), 0, 0, 0, 0} end
  end
  for index, plan_window in ipairs(customer.p or {}) do
    local window_key = customer_base .. ':' .. plan_window.k
    local state = redis.call('HMGET', window_key, 'start', 'requests', 'spent', 'reserved')
    local start = tonumber(state[1] or '-1')
    local fresh = start < 0 or now >= start + plan_window.len
    local window_requests = 0
    local window_committed = {0, 0}
    if not fresh then
      window_requests = tonumber(state[2] or '0')
      window_committed = plus(limbs(state[3] or '0'), limbs(state[4] or '0'))
    end
    local room = true
    if plan_window.rq >= 0 and window_requests + 1 > plan_window.rq then room = false end
    if room and plan_window.usd ~= nil then room = fits(window_committed, plan_window.usd) end
    if not room then
      local wait = plan_window.len
      if not fresh then wait = start + plan_window.len - now end
      return {7, math.floor(requests), math.floor(tokens), 0, 0, 0, 0, wait}
    end
    plan_fresh[index] = fresh
    if fresh then plan_starts[index] = now else plan_starts[index] = start end
  end
end
-- The lease: at most LEASE_SHARE-th of what is left of each limit, and at least this request's
-- share of each (a slice it would not fit in is no lease); none near a limit.
local granted = 1
local slice = 0
local token_slice = 0
local asked = tonumber(ARGV[11])
-- A customer's key admits one request a call: its customer's counters are shared by all its keys.
if customer ~= nil then asked = 0 end
if asked > 1 then
  if rpm > 0 then asked = math.min(asked, math.floor((rpm - requests) / ${LEASE_SHARE})) end
  if asked > 1 and tpm > 0 then
    token_slice = math.min(request_tokens * asked, math.floor((tpm - tokens) / ${LEASE_SHARE}))
    if token_slice < request_tokens then asked = 0 end
  end
  if asked > 1 and left ~= nil then
    slice = math.min(tonumber(ARGV[12]), math.floor(approx(left) / ${LEASE_SHARE}))
    if sign_of(minus(limbs(string.format('%d', slice)), reservation)) < 0 then asked = 0 end
  end
  if asked > 1 then granted = asked else slice = 0; token_slice = 0 end
end
-- One text for the slice, held and returned alike (a number past 2^53 is converted otherwise in a reply).
local slice_text = string.format('%d', slice)
if granted > 1 then
  local drop_at = tonumber(ARGV[14])
  if slice > 0 then
    redis.call('HSET', leases_key, ARGV[13], slice_text)
    keep_until(leases_key, lease_ends_key, ARGV[13], drop_at)
  end
  if token_slice > 0 then
    redis.call('HSET', held_key, ARGV[13], string.format('%d', token_slice))
    keep_until(held_key, held_ends_key, ARGV[13], drop_at)
  end
else
  -- A renewal that got no lease admits nothing: nothing to count or hold.
  if not own then return {0, math.floor(requests), math.floor(tokens), approx(committed), 0, 0, 0} end
  if budget >= 0 then
    redis.call('HINCRBY', budget_key, 'reserved', ARGV[6])
    redis.call('PEXPIREAT', budget_key, tonumber(ARGV[8]))
  end
  if limit >= 0 then redis.call('HINCRBY', quota_key, 'reserved', ARGV[6]) end
  if customer ~= nil then
    local customer_base = customer.c
    if customer.b ~= nil then
      local customer_budget = customer_base .. ':budget:' .. customer.bs
      redis.call('HINCRBY', customer_budget, 'reserved', ARGV[6])
      redis.call('PEXPIREAT', customer_budget, tonumber(customer.be))
    end
    if customer.w == 1 then redis.call('HINCRBY', customer_base .. ':wallet', 'reserved', ARGV[6]) end
    for index, plan_window in ipairs(customer.p or {}) do
      local window_key = customer_base .. ':' .. plan_window.k
      local held = '0'
      if plan_window.usd ~= nil then held = ARGV[6] end
      if plan_fresh[index] then
        redis.call('DEL', window_key)
        redis.call('HSET', window_key, 'start', string.format('%d', now), 'requests', 1, 'spent', 0, 'reserved', held)
        redis.call('PEXPIREAT', window_key, now + plan_window.len + ${PLAN_WINDOW_GRACE_MS})
      else
        redis.call('HINCRBY', window_key, 'requests', 1)
        redis.call('HINCRBY', window_key, 'reserved', held)
      end
    end
  end
  if tpm > 0 and request_tokens > 0 then
    redis.call('HINCRBY', held_key, ARGV[17], ARGV[16])
    keep_until(held_key, held_ends_key, ARGV[17], now + ${LEASE_HOLD_MS})
  end
end
if rpm > 0 then
  redis.call('INCRBY', requests_now, granted)
  redis.call('PEXPIRE', requests_now, window * 2)
end
local starts_text = ''
for index = 1, #plan_starts do
  if index > 1 then starts_text = starts_text .. ',' end
  starts_text = starts_text .. string.format('%d', plan_starts[index])
end
return {0, math.floor(requests) + 1, math.floor(tokens) + request_tokens, approx(plus(committed, reservation)), granted, slice_text, token_slice, starts_text}
`;

/**
 * KEYS: the key's counter base (as ADMIT_SCRIPT). ARGV: 1 window ms, then 2-16 the settlement as
 * ADMIT_SCRIPT carries it: the token window's number, the budget's `<period>:<start>` (of the
 * period the requests were admitted in), tokens used, reservation to release as a negative integer
 * string, cost to add (nano-USD), whether the key has a quota (1/0), whether it has a budget (1/0),
 * budget expiry (epoch ms), lease id ('' = none), the lease's release as a negative integer string,
 * requests given back, their window's number, tokens holder ('' = none), its release (negative),
 * 16 the customer's part ('' = none; settlement.ts CustomerSettlement).
 */
export const SETTLE_SCRIPT = `${SETTLE_FUNCTION}
local base = KEYS[1]
${settleCall(2, "tonumber(ARGV[1])")}
return 1
`;

/**
 * A request whose process died, settled by another process (the sweeper) exactly once: KEYS the
 * counter base; ARGV 1 the request id, 2 window ms, 3-17 the settlement as SETTLE_SCRIPT takes it.
 * A marker under the key's hash tag remembers the release (ORPHAN_MARK_MS); returns 1 when this
 * call released it, 0 when an earlier one had.
 */
export const ORPHAN_RELEASE_SCRIPT = `${SETTLE_FUNCTION}
local base = KEYS[1]
if not redis.call('SET', base .. ':released:' .. ARGV[1], '1', 'NX', 'PX', ${ORPHAN_MARK_MS}) then return 0 end
${settleCall(3, "tonumber(ARGV[2])")}
return 1
`;

/**
 * Drops what a dead process held on one key: its leases' slices (nano-USD and tokens) and its own
 * admissions' in-flight tokens, every field named by its tag (`<tag>` or `<tag>.<...>`). KEYS the
 * counter base; ARGV 1 the process's tag. Returns how many holds were dropped.
 */
export const DROP_PROCESS_SCRIPT = `
local base = KEYS[1]
local tag = ARGV[1]
local lease_prefix = tag .. '.'
local dropped = 0
for _, names in ipairs({{':leases', ':lease-ends'}, {':tokens-held', ':tokens-held-ends'}}) do
  local hash_key = base .. names[1]
  for _, field in ipairs(redis.call('HKEYS', hash_key)) do
    if field == tag or string.sub(field, 1, #lease_prefix) == lease_prefix then
      redis.call('HDEL', hash_key, field)
      redis.call('ZREM', base .. names[2], field)
      dropped = dropped + 1
    end
  end
end
return dropped
`;
