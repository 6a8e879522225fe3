-- Adds the hits counted by one rlpkit instance to fixed-window counters and
-- returns their states after the addition, in one call: the write of a
-- flush and the read that refreshes the instance's view of the counters.
--
-- The counters are limit/redis's: a string "time count prev" (time the
-- window's start in Unix µs, count its hits, prev unused by fixed windows)
-- with a TTL, so that the exact store and this one share keys.
--
-- KEYS: the counter keys.
-- ARGV[1]: little-endian IEEE doubles, integers below 2^53: per key, the
--   window start (Unix µs) the hits were counted in, the hits, the TTL in
--   milliseconds to set when the key is written in that window (the time
--   until it ends, plus a margin; a window adopted from Redis that started
--   earlier ends as much earlier), and the window in µs when
--   windows start at a counter's first hit (limitador's), else 0 (windows
--   aligned to the Unix epoch).
--
-- Per key, for windows aligned to the epoch: a stored window older than
-- the hits' (or no key) is replaced by the hits' window holding the hits;
-- the same window gets the hits added; a newer stored window is left alone
-- (the hits belong to a window that is over). For windows from the first
-- hit: a stored window still running at the hits' start gets them added
-- (instances adopt the window Redis holds); otherwise the hits' window
-- replaces it. The reply is one line per key, the state after the call, or
-- for a key that holds no counter state "!" (another string) or "!" and
-- Redis's error (WRONGTYPE): such a key is left as it is, and the other
-- keys of the call are still written.

local function flush(key, start, hits, ttl, firsthit)
  local t, c, p = start, 0, 0
  local v = redis.pcall('GET', key)
  if type(v) == 'table' then
    return '!' .. string.gsub(tostring(v.err), '\n', ' ')
  end
  if v then
    local st, sc, sp = string.match(v, '^(%-?%d+) (%d+) (%d+)$')
    if not st then
      return '!'
    end
    st, sc, sp = tonumber(st), tonumber(sc), tonumber(sp)
    if firsthit > 0 then
      if sc > 0 and st + firsthit > start then
        t, c, p = st, sc, sp
      end
    elseif st > start then
      t, c, p = st, sc, sp
      hits = 0
    elseif st == start then
      c, p = sc, sp
    end
  end
  if hits > 0 then
    c = c + hits
    local px = math.max(math.ceil(ttl - (start - t) / 1000), 1)
    redis.call('SET', key, string.format('%d %d %d', t, c, p), 'PX', string.format('%d', px))
  end
  return string.format('%d %d %d', t, c, p)
end

local args = ARGV[1]
local pos = 1
local out = {}
for k = 1, #KEYS do
  local start, hits, ttl, firsthit
  start, hits, ttl, firsthit, pos = struct.unpack('<dddd', args, pos)
  out[k] = flush(KEYS[k], start, hits, ttl, firsthit)
end
return table.concat(out, '\n')
