-- KEYS: 1 request. ARGV: 1 base, 2 id, 3 now, 4 actor (token | operator | slack), 5 operator id,
-- 6 token hash, 7 decision (approve | deny), 8 kind (once | always | ""), 9 comment, 10 via,
-- 11 retention ms, 12 "1" when the decider is the run's owner (normalised), 13 "1" when they already
-- decided (normalised). Records one person's decision; refuses a second one and reports the state.
-- Returns {outcome} or {outcome, snapshot}; outcome: decided, already_voted, always_not_allowed,
-- self_approval, expired, not_pending, not_found, token_invalid, token_used, token_replaced, corrupt.
--@include approvalHelpers.lua
local base, id = ARGV[1], ARGV[2]
local req = KEYS[1]
if redis.call('EXISTS', req) == 0 then return {'not_found'} end
local now = tonumber(ARGV[3])
local by = ARGV[5]
local tf = nil
if ARGV[4] == 'token' then
  tf = 't:' .. ARGV[6]
  local traw = redis.call('HGET', req, tf)
  if not traw then return {'token_invalid'} end
  local ok, tok = pcall(cjson.decode, traw)
  if not ok or type(tok) ~= 'table' or type(tok.a) ~= 'string' then return {'corrupt'} end
  by = tok.a
  if tok.s == 'used' then return {'token_used', snapshot(req, id, base)} end
  if tok.s == 'replaced' then return {'token_replaced', snapshot(req, id, base)} end
  if tok.s ~= 'live' then return {'corrupt'} end
end
if redis.call('HGET', req, 'status') ~= 'pending' then return {'not_pending', snapshot(req, id, base)} end
if now >= tonumber(redis.call('HGET', req, 'deadline')) then
  finish(req, id, 'expired', now, base, tonumber(ARGV[11]))
  return {'expired', snapshot(req, id, base)}
end
if redis.call('HGET', req, 'noself') == '1' and (ARGV[12] == '1' or redis.call('HGET', req, 'owner') == by) then
  return {'self_approval', snapshot(req, id, base)}
end
if ARGV[8] == 'always' and redis.call('HGET', req, 'always') ~= '1' then
  return {'always_not_allowed', snapshot(req, id, base)}
end
local draw = redis.call('HGET', req, 'decisions')
local decisions = cjson.decode(draw)
local approvals = 0
if ARGV[13] == '1' then return {'already_voted', snapshot(req, id, base)} end
for _, d in ipairs(decisions) do
  if d.by == by then return {'already_voted', snapshot(req, id, base)} end
  if d.decision == 'approve' then approvals = approvals + 1 end
end
local kind = cjson.null
if ARGV[8] ~= '' then kind = ARGV[8] end
local entry = cjson.encode({by = by, at = now, decision = ARGV[7], kind = kind, comment = ARGV[9], via = ARGV[10]})
if draw == '[]' then draw = '[' .. entry .. ']' else draw = string.sub(draw, 1, -2) .. ',' .. entry .. ']' end
redis.call('HSET', req, 'decisions', draw)
if tf then
  redis.call('HSET', req, tf, cjson.encode({a = by, s = 'used', at = now}))
end
if ARGV[7] == 'deny' then
  finish(req, id, 'denied', now, base, tonumber(ARGV[11]))
elseif approvals + 1 >= tonumber(redis.call('HGET', req, 'required')) then
  local until_ms = math.max(tonumber(redis.call('HGET', req, 'deadline')), now + tonumber(redis.call('HGET', req, 'grace')))
  redis.call('HSET', req, 'execUntil', string.format('%d', until_ms))
  finish(req, id, 'approved', now, base, tonumber(ARGV[11]))
end
return {'decided', snapshot(req, id, base)}
