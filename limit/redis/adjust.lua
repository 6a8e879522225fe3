-- Adds hits to counters without deciding anything (counter.Policy.Adjust):
-- the store's Adjust, for Limitador's Report and a reservation's
-- settlement.
--
-- KEYS: the distinct counter keys of the call.
-- ARGV[1]: little-endian IEEE doubles, all integers below 2^53: now (Unix
--   µs), servertime (1: use TIME instead of now), margin (ms added to every
--   TTL), n (adjustments), then per adjustment: key (index into KEYS),
--   algorithm (0 fixed window, 4 fixed window from its first hit, 1
--   sliding window), window (µs), delta (hits, negative gives back),
--   releaseBefore (Unix µs; 0: no bound; a give-back applies only to a
--   window that began at or before it).
-- Counters are read and written as update.lua does ("time count prev",
-- expiring when fresh under any max, plus margin). The reply is "ok", or
-- "e" when a key holds something other than a counter state (nothing is
-- written then).

local MAXV = 4294967295 -- limit.MaxPolicyValue: counts saturate there

local args = ARGV[1]
local servertime, margin, n, pos
now, servertime, margin, n, pos = sunpack('<dddd', args)
if servertime == 1 then
  if redis.replicate_commands then
    redis.replicate_commands()
  end
  local t = redis.call('TIME')
  time = tonumber(t[1]) * 1000000 + tonumber(t[2])
  now = time
end
for g = 1, nk do
  if bad[g] then
    return 'e'
  end
end

for _ = 1, n do
  local k, alg, w, delta, rb
  k, alg, w, delta, rb, pos = sunpack('<ddddd', args, pos)
  local st, sc, sp = T[k], C[k], P[k]
  local t = math.max(now, st)
  if alg == 1 then
    local start = fdiv(t, w) * w
    if start > st then
      local prev = 0
      if start - st == w then
        prev = sc
      end
      st, sc, sp = start, 0, prev
    end
  elseif alg == 4 then
    if sc == 0 or t - st >= w then
      st, sc, sp = t, 0, 0
    end
  else
    local start = fdiv(t, w) * w
    if start > st then
      st, sc, sp = start, 0, 0
    end
  end
  local changed = false
  if delta > 0 then
    sc, changed = math.min(sc + delta, MAXV), true
  elseif delta < 0 and sc > 0 and (rb == 0 or st <= rb) then
    sc, changed = math.max(sc + delta, 0), true
  end
  if changed then
    T[k], C[k], P[k], dirty[k] = st, sc, sp, true
    local f = st + w
    if alg == 1 then
      f = st + 2 * w
    end
    ttl[k] = math.max(ttl[k] or 0, ttlMillis(f, servertime) + margin, 1)
  end
end

local expiry = 'PX'
if time then
  expiry = 'PXAT'
end
for g = 1, nk do
  if dirty[g] then
    redis.call('SET', KEYS[g], format('%d %d %d', T[g], C[g], P[g]), expiry, format('%d', ttl[g]))
  end
end
return 'ok'
