-- Sets a job's data only while it is queued and not started (wait, paused, prioritized or waiting
-- for its flow children), so a worker cannot take the job between the check and the write. Delayed
-- jobs are left alone: in this runner a delayed job is a parked run, already started.
-- KEYS: the BullMQ queue's 1 job hash, 2 wait, 3 paused, 4 prioritized, 5 waiting-children.
-- ARGV: 1 job id, 2 the new data ("" to change nothing).
-- Returns "updated", "started" or "missing".
local id = ARGV[1]
local queued = redis.call("LPOS", KEYS[2], id) or redis.call("LPOS", KEYS[3], id)
  or redis.call("ZSCORE", KEYS[4], id) or redis.call("ZSCORE", KEYS[5], id)
if not queued then
  if redis.call("EXISTS", KEYS[1]) == 0 then return "missing" end
  return "started"
end
if ARGV[2] ~= "" then redis.call("HSET", KEYS[1], "data", ARGV[2]) end
return "updated"
