import MiniSearch from "minisearch";
import Type from "typebox";
import { defineTool, type Tool, type ToolReadiness, toolFailure, toolSuccess } from "../../catalog/index.js";

/** One past run, as the archive lists it. */
export interface SessionSummary {
  readonly runId: string;
  /** The user who started it: only their own runs are searched. */
  readonly userId: string;
  readonly agentId: string;
  /** Start time, ms since the epoch. */
  readonly startedAt: number;
}

/** One message of a run's transcript. */
export interface TranscriptEntry {
  readonly role: "user" | "assistant" | "tool";
  readonly text: string;
  /** The tool's name for a tool result. */
  readonly tool?: string;
}

/**
 * Past runs' transcripts (the worker archives each run's transcript, rebuilt from its journal, when
 * the run ends; see RedisSessionArchive).
 */
export interface SessionArchive {
  /** The runs `userId` may see, newest first, at most `limit`. */
  runsVisibleTo(userId: string, limit: number): Promise<readonly SessionSummary[]>;
  /** A run of `userId`'s transcript (empty when it expired or is not theirs). */
  transcript(userId: string, runId: string): Promise<readonly TranscriptEntry[]>;
}

/** Most past runs one search reads. */
export const SESSION_SEARCH_MAX_RUNS = 200;

const SessionSearchParams = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500, description: "Words to find in past runs" }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: "Most results (default 5)" })),
    agent_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: "Only runs of this agent" }),
    ),
  },
  { additionalProperties: false },
);

interface Doc {
  id: string;
  runId: string;
  agentId: string;
  startedAt: number;
  role: string;
  text: string;
}

/**
 * `session_search`: full-text search over the transcripts of past runs that the calling run's user
 * started (never another user's, even if the archive lists one; never the current run).
 */
export function createSessionSearchTool(
  archive: SessionArchive | undefined,
): Tool<typeof SessionSearchParams> {
  const readiness = (): ToolReadiness =>
    archive
      ? { ready: true, detail: "searches past runs' transcripts" }
      : { ready: false, detail: "no session archive was given (run transcripts)" };
  return defineTool({
    name: "session_search",
    description: "Search the transcripts of your past runs; returns matching messages with run id and date.",
    parameters: SessionSearchParams,
    riskLevel: "read_only",
    idempotent: true,
    readinessDetail: readiness,
    async execute(args, ctx) {
      if (!archive) return toolFailure("not_ready", readiness().detail);
      const runs = (await archive.runsVisibleTo(ctx.userId, SESSION_SEARCH_MAX_RUNS)).filter(
        (r) =>
          r.userId === ctx.userId &&
          r.runId !== ctx.executionId &&
          (args.agent_id === undefined || r.agentId === args.agent_id),
      );
      const index = new MiniSearch<Doc>({
        fields: ["text"],
        storeFields: ["runId", "agentId", "startedAt", "role", "text"],
        searchOptions: { prefix: true, fuzzy: 0.15 },
      });
      for (const run of runs) {
        const entries = await archive.transcript(ctx.userId, run.runId);
        index.addAll(
          entries.map((e, i) => ({
            id: `${run.runId}#${i}`,
            runId: run.runId,
            agentId: run.agentId,
            startedAt: run.startedAt,
            role: e.tool ? `tool ${e.tool}` : e.role,
            text: e.text,
          })),
        );
      }
      const hits = index.search(args.query).slice(0, args.limit ?? 5);
      if (hits.length === 0) {
        return toolSuccess(
          `No past run of yours mentions ${JSON.stringify(args.query)} (${runs.length} runs searched).`,
          {
            results: [],
          },
        );
      }
      const results = hits.map((h) => ({
        runId: String(h.runId),
        agentId: String(h.agentId),
        startedAt: new Date(Number(h.startedAt)).toISOString(),
        role: String(h.role),
        text: String(h.text).slice(0, 500),
      }));
      const output = results
        .map((r, i) => `${i + 1}. run ${r.runId} (agent ${r.agentId}, ${r.startedAt}) ${r.role}:\n${r.text}`)
        .join("\n\n");
      return toolSuccess(output, { results });
    },
  });
}
