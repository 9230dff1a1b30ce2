-- Takes over an in-doubt claim of ARGV[1] for ARGV[2], but only if it is still the attempt ARGV[6]
-- the caller judged.
-- KEYS[1]: the run's journal hash.
-- ARGV: 1 idempotency key, 2 owner, 3 lease ms, 4 retention ms, 5 now ms ("" = Redis TIME), then
-- as below. Replies {outcome, stateJson, extra, nowMs}, "" for empty slots (a Lua nil would cut the
-- array short). Layout of the hash: journal-prelude.lua.
-- Returns {'claimed', ...}, {'absent', ...} when it was never claimed, or what claim would report.
--@include journal-prelude.lua
local raw, st = load(ARGV[1])
if raw and not st then return unreadable(raw) end
if not raw then return {'absent', '', '', ts} end
if st.status == 'started' and st.leaseUntil <= t and st.attempt == tonumber(ARGV[6]) then
  local s = started(ARGV[2], st.attempt + 1, tonumber(ARGV[3]))
  write(ARGV[1], s, nil)
  return {'claimed', s, '', ts}
end
return existing(ARGV[1], raw, st)
