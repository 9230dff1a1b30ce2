-- Records the result ARGV[6] of ARGV[1], only for the owner ARGV[2] of the claim (fencing).
-- KEYS[1]: the run's journal hash.
-- ARGV: 1 idempotency key, 2 owner, 3 lease ms, 4 retention ms, 5 now ms ("" = Redis TIME), then
-- as below. Replies {outcome, stateJson, extra, nowMs}, "" for empty slots (a Lua nil would cut the
-- array short). Layout of the hash: journal-prelude.lua.
-- ARGV[7]: the outbox entry stored with the result ("" for none); ARGV[8..]: outbox fields delivered.
-- Returns {'completed'|'already_completed'|'not_claimed'|'not_owner'|'corrupt', stateJson, extra, nowMs}.
--@include journal-prelude.lua
acknowledge(8)
return complete(ARGV[1], ARGV[2], ARGV[6], ARGV[7])
