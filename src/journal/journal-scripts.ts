import { type LuaScript, luaScript } from "../lua/index.js";

/**
 * The journal's Lua scripts, one per operation, each a single atomic round trip on one run's hash
 * (KEYS[1]); the hash's layout and the helpers they share are in journal-prelude.lua, each script's
 * KEYS, ARGV and reply in its file's header.
 *
 * The outbox: what must still be sent elsewhere (to the audit trail, which lives in another Cluster
 * slot). `o:<key>` is written in the same HSET as the key's result (the call's execution entry), so
 * a result is never recorded without it; `c:<key>` in the same HSET as the key's first claim (the
 * gate decision that let the call run), so a claim is never taken without it.
 */
const script = (file: string): LuaScript => luaScript(import.meta.url, file);

/** Script name (the ioredis command defined for it) → script. Names are namespaced to avoid clashes. */
export const JOURNAL_SCRIPTS = {
  echoJournalClaim: script("journalClaim-1.lua"),
  echoJournalReclaim: script("journalReclaim-1.lua"),
  echoJournalComplete: script("journalComplete-1.lua"),
  echoJournalCompleteThenClaim: script("journalCompleteThenClaim-1.lua"),
  echoJournalRenew: script("journalRenew-1.lua"),
  echoJournalRead: script("journalRead-1.lua"),
  echoJournalLapse: script("journalLapse-1.lua"),
} as const;
export type JournalScriptName = keyof typeof JOURNAL_SCRIPTS;
