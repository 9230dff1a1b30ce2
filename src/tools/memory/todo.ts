import type { Cluster, Redis } from "ioredis";
import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { assertNever } from "../../shared/index.js";
import { missingForAction } from "../action-args.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import { redisReadiness } from "../redis-readiness.js";

/** What the todo tool does. */
export const TODO_ACTIONS = ["read", "write", "update"] as const;
export type TodoAction = (typeof TODO_ACTIONS)[number];

/** States of a to-do item. */
export const TODO_STATUSES = ["pending", "in_progress", "done"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

const MARKS: Readonly<Record<TodoStatus, string>> = { pending: "[ ]", in_progress: "[~]", done: "[x]" };

const TodoItem = Type.Object(
  {
    content: Type.String({ minLength: 1, maxLength: 500, description: "What to do" }),
    status: Type.Enum(TODO_STATUSES, { description: "pending, in_progress or done" }),
  },
  { additionalProperties: false },
);
type TodoItem = Static<typeof TodoItem>;

const TodoParams = Type.Object(
  {
    action: Type.Enum(TODO_ACTIONS, {
      description: "read the list; write (replace) the whole list; update one item",
    }),
    items: Type.Optional(Type.Array(TodoItem, { description: "write: the complete new list" })),
    index: Type.Optional(Type.Integer({ minimum: 1, description: "update: the item's number, 1-based" })),
    status: Type.Optional(Type.Enum(TODO_STATUSES, { description: "update: the item's new status" })),
    content: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: "update: the item's new text" }),
    ),
  },
  { additionalProperties: false },
);
export type TodoArgs = Static<typeof TodoParams>;

/** Options for {@link createTodoTool}. */
export interface TodoToolOptions {
  redis: Redis | Cluster;
  keyPrefix: string;
  /** The list expires this long after its last change, ms. */
  retentionMs: number;
  limits: BuiltinToolLimits;
}

function render(items: readonly TodoItem[]): string {
  if (items.length === 0) return "The to-do list is empty.";
  const done = items.filter((i) => i.status === "done").length;
  const lines = items.map((item, i) => `${i + 1}. ${MARKS[item.status]} ${item.content}`);
  return `${lines.join("\n")}\n[${done} of ${items.length} done]`;
}

/**
 * `todo`: the run's to-do list, one JSON value in Redis per execution id (under the run's hash
 * tag), expiring with the run's journal. `write` replaces the list and `update` sets one item's
 * fields, so repeating a call leaves the same list: the tool is idempotent.
 */
export function createTodoTool(options: TodoToolOptions): Tool<typeof TodoParams> {
  const { redis, limits } = options;
  const keyOf = (executionId: string) => `${options.keyPrefix}:{run:${executionId}}:todo`;
  const load = async (executionId: string): Promise<TodoItem[]> => {
    const raw = await redis.get(keyOf(executionId));
    return raw === null ? [] : (JSON.parse(raw) as TodoItem[]);
  };
  const save = async (executionId: string, items: readonly TodoItem[]) => {
    await redis.set(keyOf(executionId), JSON.stringify(items), "PX", options.retentionMs);
  };
  return defineTool({
    name: "todo",
    description:
      "Keep this run's to-do list: read it, write (replace) the whole list, or update one item's status or text.",
    parameters: TodoParams,
    idempotent: true,
    readinessDetail: () => redisReadiness(redis, "to-do lists"),
    isReadOnly: (args) => args.action === "read",
    isDestructive: () => false,
    async execute(args, ctx) {
      switch (args.action) {
        case "read":
          return toolSuccess(render(await load(ctx.executionId)), { items: await load(ctx.executionId) });
        case "write": {
          if (args.items === undefined) return missingForAction(["items"], "write");
          if (args.items.length > limits.todoMaxItems) {
            return toolFailure(
              "validation",
              `items has ${args.items.length} entries, more than ${limits.todoMaxItems}`,
              {
                fields: [{ field: "items", problem: `must have at most ${limits.todoMaxItems} entries` }],
              },
            );
          }
          await save(ctx.executionId, args.items);
          return toolSuccess(render(args.items), { items: args.items });
        }
        case "update": {
          if (args.index === undefined) return missingForAction(["index"], "update");
          if (args.status === undefined && args.content === undefined)
            return missingForAction(["status or content"], "update");
          const items = await load(ctx.executionId);
          const item = items[args.index - 1];
          if (item === undefined) {
            return toolFailure("business", `there is no item ${args.index}; the list has ${items.length}`);
          }
          items[args.index - 1] = {
            content: args.content ?? item.content,
            status: args.status ?? item.status,
          };
          await save(ctx.executionId, items);
          return toolSuccess(render(items), { items });
        }
        default:
          return assertNever(args.action, "todo action");
      }
    },
  });
}
