import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import type { SpillReader } from "../builtin-runtime.js";

/**
 * Largest page read_spill returns, bytes. Below the agent loop's 8,000-char result limit with room
 * for the footer, so a page is never truncated and spilled again.
 */
export const READ_SPILL_MAX_PAGE = 7000;

const ReadSpillParams = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'The id a truncated result gave (read_spill {"id": "..."})',
    }),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: "Byte offset to start at (default 0)" })),
    length: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: READ_SPILL_MAX_PAGE,
        description: `Bytes to return (default and most ${READ_SPILL_MAX_PAGE})`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ReadSpillArgs = Static<typeof ReadSpillParams>;

/** Options for {@link createReadSpillTool}. */
export interface ReadSpillToolOptions {
  spill: SpillReader;
}

/**
 * `read_spill`: pages through the full text of a tool result the agent loop truncated. A run reads
 * only its own spills (the id starts with its execution id); offsets count bytes of the stored
 * UTF-8 text, so a multi-byte character cut by a page edge may show as U+FFFD.
 */
export function createReadSpillTool(options: ReadSpillToolOptions): Tool<typeof ReadSpillParams> {
  return defineTool({
    name: "read_spill",
    description:
      "Read the full text of a truncated tool result, one page at a time (the truncated result says which id to read).",
    parameters: ReadSpillParams,
    riskLevel: "read_only",
    idempotent: true,
    checkPermissions(args, ctx) {
      if (args.id.startsWith(`${ctx.executionId}/`)) return { behavior: "passthrough" };
      return {
        behavior: "deny",
        reason: `spill ${args.id} belongs to another run; a run reads only its own`,
      };
    },
    async execute(args, ctx) {
      if (!args.id.startsWith(`${ctx.executionId}/`)) {
        return toolFailure(
          "denied",
          `spill ${args.id} belongs to another run; a run reads only its own spills`,
        );
      }
      const offset = args.offset ?? 0;
      const length = args.length ?? READ_SPILL_MAX_PAGE;
      const page = await options.spill.read(args.id, offset, length);
      if (page === undefined) {
        return toolFailure(
          "business",
          `no spilled result ${args.id} (unknown, or expired with the run's journal)`,
        );
      }
      if (offset >= page.total) {
        return toolFailure(
          "business",
          `offset ${offset} is past the end of ${args.id}, which has ${page.total} bytes`,
        );
      }
      const next = Math.min(offset + length, page.total);
      const footer =
        next < page.total
          ? `[bytes ${offset}-${next} of ${page.total}; continue with offset ${next}]`
          : `[bytes ${offset}-${next} of ${page.total}; end]`;
      return toolSuccess(`${page.text}\n${footer}`, { offset, next, total: page.total });
    },
  });
}
