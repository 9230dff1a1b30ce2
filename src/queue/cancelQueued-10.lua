-- Moves a job that no worker holds (waiting, prioritized, paused, delayed: parked or backing off
-- before a retry) to failed with the cancellation as its reason, so no worker can take it between
-- the check and the move. A running job is left to its worker ("active"); a workflow step (it has a
-- parent job) or a job waiting for its children is left to the worker too ("defer"), since moving it
-- by hand would leave its flow waiting: it fails at its start instead.
-- KEYS: the BullMQ queue's 1 job hash, 2 wait, 3 paused, 4 prioritized, 5 delayed, 6 failed,
-- 7 events, 8 active, 9 waiting-children, 10 completed (one hash tag).
-- ARGV: 1 job id, 2 failed reason, 3 now ms.
-- Returns "cancelled", "active", "defer", "completed", "failed" or "missing".
local id = ARGV[1]
if redis.call("EXISTS", KEYS[1]) == 0 then return "missing" end
if redis.call("HEXISTS", KEYS[1], "parentKey") == 1 then
  if redis.call("LPOS", KEYS[8], id) then return "active" end
  if redis.call("ZSCORE", KEYS[6], id) then return "failed" end
  if redis.call("ZSCORE", KEYS[10], id) then return "completed" end
  return "defer"
end
local prev = "waiting"
local removed = redis.call("LREM", KEYS[2], 0, id) + redis.call("LREM", KEYS[3], 0, id)
if removed == 0 then
  prev = "prioritized"
  removed = redis.call("ZREM", KEYS[4], id)
end
if removed == 0 then
  prev = "delayed"
  removed = redis.call("ZREM", KEYS[5], id)
end
if removed == 0 then
  if redis.call("LPOS", KEYS[8], id) then return "active" end
  if redis.call("ZSCORE", KEYS[9], id) then return "defer" end
  if redis.call("ZSCORE", KEYS[6], id) then return "failed" end
  if redis.call("ZSCORE", KEYS[10], id) then return "completed" end
  return "defer"
end
redis.call("HSET", KEYS[1], "failedReason", ARGV[2], "finishedOn", ARGV[3])
redis.call("HDEL", KEYS[1], "delay")
redis.call("ZADD", KEYS[6], ARGV[3], id)
redis.call("XADD", KEYS[7], "*", "event", "failed", "jobId", id, "failedReason", ARGV[2], "prev", prev)
return "cancelled"
