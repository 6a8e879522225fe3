-- Applies batches of counter updates, each all or nothing, and returns the
-- states each read, so that the caller can replay limit.Policy.Decide on
-- them.
--
-- KEYS: the distinct counter keys of the call.
-- ARGV[1]: the requests' keys, little-endian IEEE doubles: per request its
--   number of keys, then each one's index into KEYS; empty for a single
--   request whose key j is KEYS[j].
-- ARGV[2], ARGV[3], ...: one request each, decided in this order, each all
--   or nothing on the states the requests before it left; little-endian
--   IEEE doubles, all integers below 2^53:
--   now (Unix µs), servertime (1: use TIME instead of now, read once for
--   the call), margin (ms added to every TTL), n (updates),
--   then per update: key (index into the request's keys), algorithm (4:
--   the fixed window starting at its first hit), max, window (µs),
--   weight (-1: proportional sliding window, else 0-100), cost,
-- A stored state is the text "time count prev" (see limit.State), written
-- to expire when it decides as a fresh counter does under any max (see
-- fresh), plus margin: at that instant of the server's clock with
-- servertime, else after the span from the instant of the request that
-- wrote it (see prelude.lua's ttlMillis).
-- The reply is "now flags", one flag per request (1 admitted, 0 rejected,
-- e one of its keys holds no counter state, a an update of an algorithm
-- this script does not know), then per request a line per key holding the
-- state it read: empty when the key did not exist, ! when it holds another
-- string, ! and Redis's error when reading it failed (WRONGTYPE). A fault
-- fails only the requests it belongs to; the others of the call are
-- decided.
--
-- Only whether each request is admitted is decided here; the decisions
-- themselves are computed by the caller. Every number stays an integer
-- below 2^53 except the sliding window's estimates, which are computed in
-- the order limit.SlidingWindow documents.

local MAXV = 4294967295 -- limit.MaxPolicyValue


-- refill interval of the token bucket and GCRA: ceil(w/max), or w.
local function per(max, w)
  if max == 0 then
    return w
  end
  return fdiv(w + max - 1, max)
end

-- Each returns whether n more hits are admitted (n = cost; a check, 0, is
-- admitted unless the counter already holds more than max) and, if so, the
-- state after consuming cost of them.
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

-- fresh returns the instant from which a state written under an algorithm
-- decides as a fresh counter does under every policy of that algorithm and
-- window, whatever its max (a reload may change a limit's max and keep its
-- key), as limit/counter's Policy.freshFrom: the end of its window (fixed
-- window), of the window after it (sliding window, which reads the
-- previous one), its TAT (GCRA); for the token bucket st + w + sc - 1,
-- since sc tokens missing refill within w + sc - 1 µs at any max.
local fresh = {}
fresh[0] = function(st, sc, w) return st + w end
fresh[4] = fresh[0]
fresh[1] = function(st, sc, w) return st + 2 * w end
fresh[2] = function(st, sc, w)
  if sc == 0 then
    return st
  end
  return st + w + sc - 1
end
fresh[3] = function(st) return st end

local map, mpos = ARGV[1], 1
local flags, lines = {}, {}
local km, oT, oC, oP, oX, touched = {}, {}, {}, {}, {}, {}
for r = 2, #ARGV do
  local args = ARGV[r]
  local servertime, margin, nu, pos
  now, servertime, margin, nu, pos = sunpack('<dddd', args)
  if servertime == 1 then
    if not time then
      if redis.replicate_commands then
        redis.replicate_commands()
      end
      local t = redis.call('TIME')
      time = tonumber(t[1]) * 1000000 + tonumber(t[2])
    end
    now = time
  end
  local rk = 0
  if map == '' then
    rk = nk
    for j = 1, nk do
      km[j] = j
    end
  else
    rk, mpos = sunpack('<d', map, mpos)
    for j = 1, rk do
      km[j], mpos = sunpack('<d', map, mpos)
    end
  end
  local ok, flag = true, '1'
  for j = 1, rk do
    local g = km[j]
    lines[#lines + 1] = cur[g]
    if bad[g] then
      ok, flag = false, 'e'
    end
  end
  local nt = 0
  for _ = 1, nu do
    if not ok then
      break
    end
    local k, alg, max, w, weight, cost
    k, alg, max, w, weight, cost, pos = sunpack('<dddddd', args, pos)
    local g = km[k]
    local n = cost -- a check (0) is over only when the counter already is
    local f = decide[alg]
    if not f then
      -- fails this request alone, not the others sharing the call
      ok, flag = false, 'a'
      break
    end
    local st, sc, sp = oT[g], oC[g], oP[g]
    if not st then
      st, sc, sp = T[g], C[g], P[g]
    end
    local admitted
    admitted, st, sc, sp = f(st, sc, sp, max, w, weight, n, cost)
    if not admitted then
      ok, flag = false, '0'
    elseif cost > 0 then
      if not oT[g] then
        nt = nt + 1
        touched[nt] = g
      end
      oT[g], oC[g], oP[g] = st, sc, sp
      local ms = ttlMillis(fresh[alg](st, sc, w), servertime)
      if not oX[g] or ms > oX[g] then
        oX[g] = ms
      end
    end
  end
  for i = 1, nt do
    local g = touched[i]
    if ok then
      T[g], C[g], P[g], dirty[g] = oT[g], oC[g], oP[g], true
      cur[g] = format('%d %d %d', T[g], C[g], P[g])
      ttl[g] = math.max(ttl[g] or 0, oX[g] + margin, 1)
    end
    oT[g], oC[g], oP[g], oX[g] = nil, nil, nil, nil
  end
  flags[#flags + 1] = flag
end

-- PXAT: an instant of the server's clock (servertime), PX: a span.
local expiry = 'PX'
if time then
  expiry = 'PXAT'
end
for g = 1, nk do
  if dirty[g] then
    redis.call('SET', KEYS[g], cur[g], expiry, format('%d', ttl[g]))
  end
end

return format('%d ', time or 0) .. table.concat(flags) .. '\n' .. table.concat(lines, '\n')
