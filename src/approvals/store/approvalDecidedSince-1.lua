-- KEYS: 1 promoter position (for the slot). ARGV: 1 base, then pairs of run id and an instant (ms).
-- Returns the run ids that have a request which became final (approved, denied, expired, cancelled)
-- after their instant: runs parked before a decision they have not read yet.
--@include approvalHelpers.lua
local base = ARGV[1]
local found = {}
for i = 2, #ARGV - 1, 2 do
  local run, since = ARGV[i], tonumber(ARGV[i + 1])
  for _, id in ipairs(run_ids(base .. 'run:' .. run)) do
    local state = redis.call('HMGET', base .. 'req:' .. id, 'status', 'finishedAt')
    if state[1] and state[1] ~= 'pending' and state[2] and tonumber(state[2]) > since then
      found[#found + 1] = run
      break
    end
  end
end
return found
