-- KEYS: 1 request. ARGV: 1 approver, 2 token hash, 3 now, 4 slot ("" = the approver's main link).
-- Makes a new live token for the approver in that slot and marks the slot's previous one replaced:
-- one live token per approver and slot. A slot other than "" (`cur:<approver>\0<slot>`) holds the
-- link of a re-sent target, so re-sending never replaces a link that reached the person.
-- Returns 'issued', 'not_found' or 'not_pending'.
if redis.call('EXISTS', KEYS[1]) == 0 then return 'not_found' end
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 'not_pending' end
local now = tonumber(ARGV[3])
if now >= tonumber(redis.call('HGET', KEYS[1], 'deadline')) then return 'not_pending' end
local cf = 'cur:' .. ARGV[1]
if ARGV[4] ~= '' then cf = cf .. string.char(0) .. ARGV[4] end
local prev = redis.call('HGET', KEYS[1], cf)
if prev then
  local traw = redis.call('HGET', KEYS[1], 't:' .. prev)
  if traw and cjson.decode(traw).s == 'live' then
    redis.call('HSET', KEYS[1], 't:' .. prev, cjson.encode({a = ARGV[1], s = 'replaced', at = now}))
  end
end
redis.call('HSET', KEYS[1], 't:' .. ARGV[2], cjson.encode({a = ARGV[1], s = 'live', at = now}), cf, ARGV[2])
return 'issued'
