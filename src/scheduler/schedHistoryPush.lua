-- push_history(key, entry, max): pushes a history entry and trims the list to `max` entries.
-- (Included by the scheduler's scripts, not run alone.)
local function push_history(key, entry, max)
  redis.call('LPUSH', key, entry)
  redis.call('LTRIM', key, 0, tonumber(max) - 1)
end
