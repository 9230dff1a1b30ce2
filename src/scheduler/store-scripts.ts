/**
 * The scheduler's Lua scripts: each is one atomic round trip over keys that share the `{sched}` hash
 * tag. Stored schedules and history entries pass through verbatim (cjson would turn `[]` into `{}`);
 * only the small claim records and the `rev` of a schedule are decoded here.
 */
import { luaScript } from "../lua/index.js";

/** One script: its key count (null: the caller passes it first) and source. */
function script(file: string): { keys: number | null; lua: string } {
  const { lua, numberOfKeys } = luaScript(import.meta.url, file);
  return { keys: numberOfKeys ?? null, lua };
}

/**
 * Script name (as an ioredis command) → key count and source, each script in its .lua file (KEYS,
 * ARGV and the reply in its header). Names are prefixed to avoid clashes.
 */
export const SCHEDULER_SCRIPTS = {
  schedClaimMany: script("schedClaimMany.lua"),
  schedSave: script("schedSave-5.lua"),
  schedDelete: script("schedDelete-9.lua"),
  schedAdvance: script("schedAdvance-4.lua"),
  schedFinalize: script("schedFinalize-8.lua"),
  schedRelease: script("schedRelease-5.lua"),
  schedFinish: script("schedFinish-3.lua"),
  schedAppend: script("schedAppend-1.lua"),
  schedLockRenew: script("schedLockRenew-1.lua"),
  schedLockRelease: script("schedLockRelease-1.lua"),
} as const;

export type SchedulerScriptName = keyof typeof SCHEDULER_SCRIPTS;
