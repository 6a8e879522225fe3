-- Shared by update.lua and fixed.lua: the store sends each script with
-- this text before it (limit/redis's store.go), so that both read the
-- keys, divide and compute expiries alike.

local sunpack, format = struct.unpack, string.format
local now, time -- the instant of the request being decided; TIME, once read

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

-- ttlMillis returns what SET is given for a state fresh from the instant
-- f: with servertime the instant itself (PXAT), in ms rounded up, since f
-- is on the server's clock; else the span from now (PX), in ms rounded up
-- with a millisecond more, since Redis counts it from its clock's
-- millisecond, rounded down.
local function ttlMillis(f, servertime)
  if servertime == 1 then
    return fdiv(f + 999, 1000)
  end
  return fdiv(f - now + 1998, 1000)
end

local nk = #KEYS
local cur, T, C, P, bad, dirty, ttl = {}, {}, {}, {}, {}, {}, {}
-- one MGET per 1000 keys (unpack's stack stays small) rather than a GET
-- per key: Redis spends much of a script's time entering each command.
local vals = {}
for from = 1, nk, 1000 do
  local got = redis.call('MGET', unpack(KEYS, from, math.min(nk, from + 999)))
  for i = 1, #got do
    vals[from + i - 1] = got[i]
  end
end
for g = 1, nk do
  local v = vals[g]
  if not v then
    -- MGET reads a key of another type as none: GET tells them apart
    -- (WRONGTYPE), so that a key not holding a string is never written.
    -- pcall keeps the error to the requests touching the key: the others
    -- of the call are still decided.
    v = redis.pcall('GET', KEYS[g])
  end
  cur[g], T[g], C[g], P[g] = '', 0, 0, 0
  if type(v) == 'table' then
    cur[g], bad[g] = '!' .. string.gsub(tostring(v.err), '\n', ' '), true
  elseif v then
    local t, c, p = string.match(v, '^(%-?%d+) (%d+) (%d+)$')
    if t then
      cur[g], T[g], C[g], P[g] = v, tonumber(t), tonumber(c), tonumber(p)
    else
      cur[g], bad[g] = '!', true
    end
  end
end

