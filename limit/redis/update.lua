-- Applies one batch of counter updates all or nothing and returns the
-- states it read, so that the caller can replay limit.Policy.Decide on them.
--
-- KEYS: the distinct counter keys of the batch.
-- ARGV[1]: little-endian IEEE doubles, all integers below 2^53:
--   now (Unix µs), servertime (1: use TIME instead of now), n (updates),
--   then per update: key (index into KEYS), algorithm (4: the fixed window
--   starting at its first hit), max, window (µs),
--   weight (-1: proportional sliding window, else 0-100), cost,
--   then per key: its TTL in milliseconds when written.
-- A stored state is the text "time count prev" (see limit.State).
-- The reply is "now allowed" (allowed 1 or 0), then per key a line holding
-- the state read, empty when the key did not exist.
--
-- Only whether every update is admitted is decided here; the decisions
-- themselves are computed by the caller. Every number stays an integer
-- below 2^53 except the sliding window's estimates, which are computed in
-- the order limit.SlidingWindow documents.

local MAXV = 4294967295 -- limit.MaxPolicyValue

local args = ARGV[1]
local now, servertime, nu, pos = struct.unpack('<ddd', args)
if servertime == 1 then
  if redis.replicate_commands then
    redis.replicate_commands()
  end
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local nk = #KEYS

-- floor(a/b) for integers, b > 0, exact while a < 2^53.
local function fdiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

-- refill interval of the token bucket and GCRA: ceil(w/max), or w.
local function per(max, w)
  if max == 0 then
    return w
  end
  return fdiv(w + max - 1, max)
end

-- Each returns whether n more hits are admitted and, if so, the state after
-- consuming cost of them.
local decide = {}

decide[0] = function(st, sc, sp, max, w, weight, n, cost) -- fixed window
  local t = math.max(now, st)
  local start = fdiv(t, w) * w
  if start > st then
    st, sc, sp = start, 0, 0
  end
  if sc + n <= max then
    return true, st, sc + cost, sp
  end
  return false
end

decide[4] = function(st, sc, sp, max, w, weight, n, cost) -- fixed window from its first hit
  local t = math.max(now, st)
  if sc == 0 or t - st >= w then
    st, sc, sp = t, 0, 0
  end
  if sc + n <= max then
    return true, st, sc + cost, sp
  end
  return false
end

decide[1] = function(st, sc, sp, max, w, weight, n, cost) -- sliding window
  local t = math.max(now, st)
  local start = fdiv(t, w) * w
  if start > st then
    local prev = 0
    if start - st == w then
      prev = sc
    end
    st, sc, sp = start, 0, prev
  end
  local left = w - (t - st)
  local ok
  if weight < 0 then
    local prevPart = (sp * left) / w
    ok = n <= max and prevPart + (sc + n) <= max
  else
    local wt = weight / 100
    local interval = w / 1e6
    local budget = max / math.max(interval, 1)
    ok = n <= max and sc + n <= MAXV and (sp * (1 - wt) + (sc + n) * wt) / interval <= budget
  end
  if ok then
    return true, st, sc + cost, sp
  end
  return false
end

decide[2] = function(st, sc, sp, max, w, weight, n, cost) -- token bucket
  local p = per(max, w)
  local t = math.max(now, st)
  if sc > max then
    sc = max
  end
  if sc == 0 then
    st = t
  else
    local credited = fdiv(t - st, p)
    if credited >= sc then
      st, sc, sp = t, 0, 0
    else
      sc = sc - credited
      st = st + credited * p
    end
  end
  if sc + n <= max then
    return true, st, sc + cost, sp
  end
  return false
end

decide[3] = function(st, sc, sp, max, w, weight, n, cost) -- GCRA
  local p = per(max, w)
  local tat = math.max(st, now)
  if n > max or (tat - now) + n * p > max * p then
    return false
  end
  return true, tat + n * p, sc, sp
end

local raw, T, C, P, dirty = {}, {}, {}, {}, {}
for k = 1, nk do
  local v = redis.call('GET', KEYS[k])
  if v then
    local t, c, p = string.match(v, '^(%-?%d+) (%d+) (%d+)$')
    if not t then
      return redis.error_reply('limit/redis: key ' .. KEYS[k] .. ' does not hold a counter state')
    end
    raw[k], T[k], C[k], P[k] = v, tonumber(t), tonumber(c), tonumber(p)
  else
    raw[k], T[k], C[k], P[k] = '', 0, 0, 0
  end
end

local ok = true
for _ = 1, nu do
  local k, alg, max, w, weight, cost
  k, alg, max, w, weight, cost, pos = struct.unpack('<dddddd', args, pos)
  local n = cost
  if n == 0 then
    n = 1
  end
  local f = decide[alg]
  if not f then
    return redis.error_reply(string.format('limit/redis: unknown algorithm %d', alg))
  end
  local admitted, st, sc, sp = f(T[k], C[k], P[k], max, w, weight, n, cost)
  if not admitted then
    ok = false
    break
  end
  if cost > 0 then
    T[k], C[k], P[k], dirty[k] = st, sc, sp, true
  end
end

if ok then
  for k = 1, nk do
    local ttl
    ttl, pos = struct.unpack('<d', args, pos)
    if dirty[k] then
      redis.call('SET', KEYS[k], string.format('%d %d %d', T[k], C[k], P[k]), 'PX', string.format('%d', ttl))
    end
  end
end

local flag = 0
if ok then
  flag = 1
end
return string.format('%d %d', now, flag) .. '\n' .. table.concat(raw, '\n')
