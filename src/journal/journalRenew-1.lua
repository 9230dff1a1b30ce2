-- Extends the lease of a started claim of ARGV[1] by ARGV[3] ms, only for its owner ARGV[2].
-- KEYS[1]: the run's journal hash.
-- ARGV: 1 idempotency key, 2 owner, 3 lease ms, 4 retention ms, 5 now ms ("" = Redis TIME), then
-- as below. Replies {outcome, stateJson, extra, nowMs}, "" for empty slots (a Lua nil would cut the
-- array short). Layout of the hash: journal-prelude.lua.
-- Returns {'renewed'|'not_claimed'|'not_owner'|'already_completed'|'corrupt', stateJson, '', nowMs}.
--@include journal-prelude.lua
local raw, st = load(ARGV[1])
if raw and not st then return unreadable(raw) end
if not raw then return {'not_claimed', '', '', ts} end
if st.owner ~= ARGV[2] then return {'not_owner', raw, '', ts} end
if st.status == 'completed' then return {'already_completed', raw, '', ts} end
st.leaseUntil = t + tonumber(ARGV[3])
local s = cjson.encode(st)
write(ARGV[1], s, nil)
return {'renewed', s, '', ts}
