import type { Cluster, Redis } from "ioredis";
import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { luaScript } from "../../lua/index.js";
import { assertNever, type Clock } from "../../shared/index.js";
import { missingForAction } from "../action-args.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import { redisReadiness } from "../redis-readiness.js";

/** What the memory tool does. */
export const MEMORY_ACTIONS = ["read", "write", "list", "delete"] as const;
export type MemoryAction = (typeof MEMORY_ACTIONS)[number];

const KEY_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$";

const MemoryParams = Type.Object(
  {
    action: Type.Enum(MEMORY_ACTIONS, { description: "read, write, list or delete" }),
    key: Type.Optional(
      Type.String({
        pattern: KEY_PATTERN,
        description: "Name of the memory: letters, digits and _ . : / - (1-128 chars), e.g. prefs/editor",
      }),
    ),
    value: Type.Optional(Type.String({ description: "write: the text to remember" })),
    prefix: Type.Optional(Type.String({ maxLength: 128, description: "list: only keys starting with this" })),
  },
  { additionalProperties: false },
);
export type MemoryArgs = Static<typeof MemoryParams>;

/** One stored memory. */
interface MemoryEntry {
  value: string;
  updatedAt: number;
  updatedBy: string;
}

/** Options for {@link createMemoryTool}. */
export interface MemoryToolOptions {
  redis: Redis | Cluster;
  keyPrefix: string;
  limits: BuiltinToolLimits;
  clock: Clock;
}

// Writes a field unless the hash is full; replacing an existing field is always allowed.
const WRITE_SCRIPT = luaScript(import.meta.url, "memoryWrite-1.lua").lua;

/**
 * `memory`: remembered text that outlives runs, one Redis hash per memory scope (ctx.memoryScope,
 * normalised per person by the runner), so a run reads and writes only its scope's memories.
 * `write` sets and `delete` removes a key, so repeating a call leaves the same state: the tool is
 * idempotent. Memories do not expire; a scope holds at most `memoryMaxEntries`.
 */
export function createMemoryTool(options: MemoryToolOptions): Tool<typeof MemoryParams> {
  const { redis, limits } = options;
  // The scope is URI-encoded so that braces in it cannot break the Redis Cluster hash tag.
  const keyOf = (scope: string) => `${options.keyPrefix}:memory:{${encodeURIComponent(scope)}}`;
  return defineTool({
    name: "memory",
    description:
      "Remember things across runs: write a value under a key, read it back, list keys (optionally by prefix) or delete one. Memories are private to the user the run belongs to.",
    parameters: MemoryParams,
    idempotent: true,
    readinessDetail: () => redisReadiness(redis, "memories"),
    isReadOnly: (args) => args.action === "read" || args.action === "list",
    isDestructive: () => false,
    async execute(args, ctx) {
      const hash = keyOf(ctx.memoryScope);
      switch (args.action) {
        case "read": {
          if (args.key === undefined) return missingForAction(["key"], "read");
          const raw = await redis.hget(hash, args.key);
          if (raw === null) return toolFailure("business", `there is no memory named ${args.key}`);
          const entry = JSON.parse(raw) as MemoryEntry;
          return toolSuccess(entry.value, { key: args.key, updatedAt: entry.updatedAt });
        }
        case "write": {
          if (args.key === undefined) return missingForAction(["key"], "write");
          if (args.value === undefined) return missingForAction(["value"], "write");
          if (args.value.length > limits.memoryValueMaxChars) {
            return toolFailure(
              "validation",
              `value is ${args.value.length} chars, more than ${limits.memoryValueMaxChars}`,
              {
                fields: [{ field: "value", problem: `must be at most ${limits.memoryValueMaxChars} chars` }],
              },
            );
          }
          const entry: MemoryEntry = {
            value: args.value,
            updatedAt: options.clock.now(),
            updatedBy: ctx.executionId,
          };
          const stored = await redis.eval(
            WRITE_SCRIPT,
            1,
            hash,
            args.key,
            JSON.stringify(entry),
            limits.memoryMaxEntries,
          );
          if (stored === 0) {
            return toolFailure(
              "business",
              `this memory scope is full (${limits.memoryMaxEntries} memories); delete some before writing new ones`,
            );
          }
          return toolSuccess(`Remembered ${args.key} (${args.value.length} chars)`, { key: args.key });
        }
        case "list": {
          const all = await redis.hgetall(hash);
          const keys = Object.keys(all)
            .filter((k) => k.startsWith(args.prefix ?? ""))
            .sort();
          if (keys.length === 0) return toolSuccess("No memories.", { keys: [] });
          const lines = keys.map((k) => {
            const value = (JSON.parse(all[k] as string) as MemoryEntry).value.replace(/\s+/g, " ");
            return `${k}: ${value.length > 80 ? `${value.slice(0, 80)}…` : value}`;
          });
          return toolSuccess(lines.join("\n"), { keys });
        }
        case "delete": {
          if (args.key === undefined) return missingForAction(["key"], "delete");
          const removed = await redis.hdel(hash, args.key);
          return toolSuccess(removed === 1 ? `Forgot ${args.key}` : `There was no memory named ${args.key}`, {
            key: args.key,
            removed: removed === 1,
          });
        }
        default:
          return assertNever(args.action, "memory action");
      }
    },
  });
}
