import { resolve } from "node:path";
import { callKeyOf } from "../agent/index.js";
import {
  type ApprovalRecord,
  type ApprovalStory,
  type ApprovalStorySource,
  cutWithNote,
  STORY_NAMED_PATHS,
  type StoryStep,
  summariseArgs,
} from "../approvals/index.js";
import { isExecClassTool } from "../catalog/index.js";
import { redactSecrets } from "../journal/index.js";
import type { AgentJobPayload } from "../queue/index.js";
import { workspaceEntryState } from "../tools/index.js";
import type { RunInspector } from "./run-inspector.js";
import type { DecisionView, RunDetail } from "./run-view.js";

/** Longest task or agent text in a story, characters; longer texts are cut with a note. */
export const STORY_TEXT_LIMIT = 4000;

/** Options for {@link ApprovalStoryReader}. */
export interface ApprovalStoryReaderOptions {
  /** An inspector over the same Redis; give it a `maxChars` of at least {@link STORY_TEXT_LIMIT}. */
  inspector: Pick<RunInspector, "showRun" | "jobPayload">;
  /** `tools.exec.host`: where exec-class calls run (`local`, `sandbox`, `remote`). */
  execHost: string;
  /** Longest task or agent text, characters. Default {@link STORY_TEXT_LIMIT}. */
  textLimit?: number;
  /**
   * The paths an `exec` command names, as the guard's parser reads it (at most `max`); without it
   * a story shows no paths.
   */
  namedPaths?: (command: string, max: number) => Promise<string[]>;
}

/** Words for each exec host, as an approver needs them. */
function hostLabel(host: string): string {
  switch (host) {
    case "local":
      return "local: this machine, as the runner's user, no sandbox";
    case "sandbox":
      return "sandbox (bubblewrap): only the workspace is writable";
    case "remote":
      return "remote host";
    default:
      return host;
  }
}

/**
 * Reads the story of an approval request from the run's job, journal and audit trail each time it
 * is asked (pages and mails), so nothing of it is stored with the parked run. A run whose traces
 * are gone yields a story with notes saying so, never an error that would block the page.
 */
export class ApprovalStoryReader implements ApprovalStorySource {
  readonly #options: ApprovalStoryReaderOptions;

  constructor(options: ApprovalStoryReaderOptions) {
    this.#options = options;
  }

  async read(record: ApprovalRecord): Promise<ApprovalStory> {
    const limit = this.#options.textLimit ?? STORY_TEXT_LIMIT;
    const notes: string[] = [];
    const [detail, payload, parentPayload] = await Promise.all([
      this.#options.inspector.showRun(record.runId).catch((err: Error) => {
        notes.push(`the run's journal could not be read (${err.message.split("\n")[0]})`);
        return null;
      }),
      this.#options.inspector.jobPayload(record.runId).catch(() => null),
      record.parentRunId === null
        ? Promise.resolve(null)
        : this.#options.inspector.jobPayload(record.parentRunId).catch(() => null),
    ]);
    if (payload === null) notes.push("the run's job is no longer kept, so its task is not shown");
    const cut = (text: string | null | undefined) =>
      text === null || text === undefined || text === "" ? null : cutWithNote(text, limit);
    const { agentWords, steps } = detail ? storyOfRun(detail, record.idempotencyKey, notes) : none();
    const story: ApprovalStory = {
      task: cut(payload?.agent.task ?? detail?.task),
      agentWords: cut(agentWords),
      steps,
      exec: isExecClassTool(record.tool) ? await this.#execPlace(record, payload) : null,
      parent:
        record.parentRunId === null
          ? null
          : { runId: record.parentRunId, task: cut(parentPayload?.agent.task) },
      notes,
    };
    return redactSecrets(story);
  }

  async #execPlace(record: ApprovalRecord, payload: AgentJobPayload | null): Promise<ExecPlace> {
    const place = execPlace(record, payload, this.#options.execHost);
    const workspace = payload?.agent.workspace;
    const command = execCommandOf(record);
    if (this.#options.namedPaths === undefined || workspace === undefined || command === null) return place;
    const cwd = workingDirectoryOf(record) ?? place.cwd;
    try {
      const named = await this.#options.namedPaths(command, STORY_NAMED_PATHS);
      const paths = await Promise.all(
        named.map(async (path) => ({ path, state: await workspaceEntryState(workspace, cwd, path) })),
      );
      return paths.length === 0 ? place : { ...place, paths };
    } catch {
      // A command the parser cannot read shows no paths: the call itself is on the page.
      return place;
    }
  }
}

type ExecPlace = NonNullable<ApprovalStory["exec"]>;

/** The command of an `exec` call's record (its arguments, bound with host and directory), or null. */
function execCommandOf(record: ApprovalRecord): string | null {
  if (record.tool !== "exec") return null;
  try {
    const canonical = JSON.parse(record.argsCanonical) as { command?: unknown; args?: { command?: unknown } };
    const command = canonical.args?.command ?? canonical.command;
    return typeof command === "string" ? command : null;
  } catch {
    return null;
  }
}

/** The working directory an exec call's approval is bound to, when its record carries it. */
function workingDirectoryOf(record: ApprovalRecord): string | null {
  try {
    const canonical = JSON.parse(record.argsCanonical) as { workingDirectory?: unknown };
    return typeof canonical.workingDirectory === "string" ? canonical.workingDirectory : null;
  } catch {
    return null;
  }
}

function none(): { agentWords: null; steps: StoryStep[] } {
  return { agentWords: null, steps: [] };
}

/** The words of the turn that made the call and every earlier call, most recent first. */
function storyOfRun(
  detail: RunDetail,
  idempotencyKey: string,
  notes: string[],
): { agentWords: string | null; steps: StoryStep[] } {
  const calls = detail.transcript.flatMap((turn) => turn.toolCalls.map((call) => ({ turn, call })));
  // A call that runs workspace files asks under a key that adds their digests (approvalKeyOf).
  const callKey = callKeyOf(idempotencyKey);
  const target = calls.find(({ call }) => call.idempotencyKey === callKey);
  if (!target) notes.push("the turn that made this call is not in the journal (it may have expired)");
  const before = target ? calls.filter(({ call }) => call.callIndex < target.call.callIndex) : calls;
  const byKey = new Map<string, DecisionView[]>();
  for (const d of detail.decisions) {
    if (!d.idempotencyKey) continue;
    const list = byKey.get(d.idempotencyKey) ?? [];
    list.push(d);
    byKey.set(d.idempotencyKey, list);
  }
  const steps = before
    .map(({ call }): StoryStep => {
      const entries = call.idempotencyKey ? (byKey.get(call.idempotencyKey) ?? []) : [];
      const decision = entries.filter((d) => d.kind === "decision").at(-1);
      const execution = entries.filter((d) => d.kind === "execution").at(-1);
      return {
        index: call.callIndex,
        tool: call.name,
        summary: summariseArgs(call.arguments),
        verdict: decision?.kind === "decision" ? decision.verdict : null,
        gateStep: decision?.kind === "decision" ? decision.step : null,
        outcome: execution?.kind === "execution" ? execution.outcome : null,
      };
    })
    .reverse();
  return { agentWords: target?.turn.content ?? null, steps };
}

function execPlace(
  record: ApprovalRecord,
  payload: AgentJobPayload | null,
  host: string,
): { cwd: string; host: string } {
  let cwd: unknown;
  try {
    const canonical = JSON.parse(record.argsCanonical) as {
      cwd?: unknown;
      execHost?: unknown;
      workingDirectory?: unknown;
    } | null;
    // An exec-class call's approval is bound to its host and working directory (approval-hash.ts):
    // show exactly those when the record carries them.
    if (typeof canonical?.workingDirectory === "string" && typeof canonical.execHost === "string")
      return { cwd: canonical.workingDirectory, host: hostLabel(canonical.execHost) };
    cwd = canonical?.cwd;
  } catch {
    cwd = undefined;
  }
  const workspace = payload?.agent.workspace;
  const where =
    workspace === undefined
      ? typeof cwd === "string"
        ? `${cwd} (relative to the run's workspace, which is no longer on record)`
        : "the run's workspace (no longer on record)"
      : resolve(workspace, typeof cwd === "string" ? cwd : ".");
  return { cwd: where, host: hostLabel(host) };
}
