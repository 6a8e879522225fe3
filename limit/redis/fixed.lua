-- The fixed window's part of update.lua, for batches of fixed windows only:
-- the same states, reply and decisions, with less to do per call (no
-- functions to build, four numbers per update).
--
-- KEYS: the distinct counter keys of the batch.
-- ARGV[1]: little-endian IEEE doubles, all integers below 2^53:
--   now (Unix µs), servertime (1: use TIME instead of now), n (updates),
--   then per update: key (index into KEYS), max, window (µs; negative for a
--   window that starts at its counter's first hit, update.lua's algorithm 4),
--   cost,
--   then per key: its TTL in milliseconds when written.

local args = ARGV[1]
local now, servertime, nu, pos = struct.unpack('<ddd', args)
if servertime == 1 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local nk = #KEYS
local floor = math.floor

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
  local k, max, w, cost
  k, max, w, cost, pos = struct.unpack('<dddd', args, pos)
  local n = cost
  if n == 0 then
    n = 1
  end
  local st, sc, sp = T[k], C[k], P[k]
  local t = now
  if st > t then
    t = st
  end
  if w < 0 then
    -- from the first hit: a new window opens at t once the last has ended
    w = -w
    if sc == 0 or t - st >= w then
      st, sc, sp = t, 0, 0
    end
  else
    -- aligned to the epoch: floor(t/w) for integers, exact while t < 2^53
    local q = floor(t / w)
    if q * w > t then
      q = q - 1
    elseif (q + 1) * w <= t then
      q = q + 1
    end
    local start = q * w
    if start > st then
      st, sc, sp = start, 0, 0
    end
  end
  if sc + n > max then
    ok = false
    break
  end
  if cost > 0 then
    T[k], C[k], P[k], dirty[k] = st, sc + cost, sp, true
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
