-- Records the result of one key the owner holds (ARGV[7], result ARGV[8], its outbox entry ARGV[9]),
-- then claims another (ARGV[1], storing ARGV[6] with the claim), atomically: "this step is done, the
-- next one starts" in one round trip.
-- KEYS[1]: the run's journal hash.
-- ARGV: 1 idempotency key, 2 owner, 3 lease ms, 4 retention ms, 5 now ms ("" = Redis TIME), then
-- as below. Replies {outcome, stateJson, extra, nowMs}, "" for empty slots (a Lua nil would cut the
-- array short). Layout of the hash: journal-prelude.lua.
-- ARGV[10..]: outbox fields delivered, deleted first.
-- Returns the completion's reply alone (4 slots) when it is refused, else the completion's reply
-- followed by the claim's (8 slots).
--@include journal-prelude.lua
acknowledge(10)
local done = complete(ARGV[7], ARGV[2], ARGV[8], ARGV[9])
if done[1] ~= 'completed' and done[1] ~= 'already_completed' then return done end
local claimed = claim(ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[6])
return {done[1], done[2], done[3], done[4], claimed[1], claimed[2], claimed[3], claimed[4]}
