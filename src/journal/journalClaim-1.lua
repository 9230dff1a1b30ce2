-- Claims ARGV[1] for owner ARGV[2] if nobody ever claimed it; otherwise reports what is there.
-- KEYS[1]: the run's journal hash.
-- ARGV: 1 idempotency key, 2 owner, 3 lease ms, 4 retention ms, 5 now ms ("" = Redis TIME), then
-- as below. Replies {outcome, stateJson, extra, nowMs}, "" for empty slots (a Lua nil would cut the
-- array short). Layout of the hash: journal-prelude.lua.
-- ARGV[6]: the claim's outbox entry ("" for none), stored only when this claim takes the key.
-- ARGV[7..]: outbox fields delivered (`o:<key>` / `c:<key>`), deleted first.
-- Returns {'claimed'|'completed'|'held'|'in_doubt'|'corrupt', stateJson, result or reason, nowMs}.
--@include journal-prelude.lua
acknowledge(7)
return claim(ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[6])
