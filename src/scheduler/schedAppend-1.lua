-- Appends history entries. KEYS: history. ARGV: 1 max, 2.. entries.
-- Returns 1.
--@include schedHistoryPush.lua
for i = 2, #ARGV do push_history(KEYS[1], ARGV[i], ARGV[1]) end
return 1
