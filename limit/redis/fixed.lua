-- The fixed window's part of update.lua, for batches of fixed windows only:
-- the same arguments, states, reply and decisions, with less to do per call
-- (no functions to build, four numbers per update).
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
--   then per update: key (index into the request's keys), max, window (µs;
--   negative for a window that starts at its counter's first hit,
--   update.lua's algorithm 4), cost,
-- A state is written to expire when its window ends, plus margin, as
-- update.lua writes it (see prelude.lua's ttlMillis).
-- The reply is "now flags", one flag per request (1 admitted, 0 rejected,
-- e one of its keys holds no counter state), then per request a line per
-- key holding the state it read: empty when the key did not exist, ! when
-- it holds another string, ! and Redis's error when reading it failed
-- (WRONGTYPE). A bad key fails only the requests touching it.

local map, mpos = ARGV[1], 1
local flags, lines = {}, {}
local km, oT, oC, oP, oX, touched = {}, {}, {}, {}, {}, {}
for r = 2, #ARGV do
  local args = ARGV[r]
  local servertime, margin, nu, pos
  now, servertime, margin, nu, pos = sunpack('<dddd', args)
  if servertime == 1 then
    if not time then
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
    local k, max, w, cost
    k, max, w, cost, pos = sunpack('<dddd', args, pos)
    local g = km[k]
    local n = cost -- a check (0) is over only when the counter already is
    local st, sc, sp = oT[g], oC[g], oP[g]
    if not st then
      st, sc, sp = T[g], C[g], P[g]
    end
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
      -- aligned to the epoch
      local start = fdiv(t, w) * w
      if start > st then
        st, sc, sp = start, 0, 0
      end
    end
    if sc + n > max then
      ok, flag = false, '0'
    elseif cost > 0 then
      if not oT[g] then
        nt = nt + 1
        touched[nt] = g
      end
      oT[g], oC[g], oP[g] = st, sc + cost, sp
      local ms = ttlMillis(st + w, servertime) -- the window's end
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
