import type { ApprovalRecord } from "../store/index.js";

/**
 * The run's story an approver reads beside the call: what the run was asked to do, what the model
 * wrote in the turn that made the call, and what it did before. It is read from the journal, the
 * job and the audit trail when a page or a mail is rendered, never copied into the approval record
 * (a parked run stays small). Every text is redacted as the audit trail redacts and cut with a note.
 */
export interface ApprovalStory {
  /** The run's task (cut), or null when the job is gone. Written by an operator or a parent agent. */
  task: string | null;
  /** The model's own words in the turn that made the call (cut), or null when it wrote none. */
  agentWords: string | null;
  /** The run's earlier tool calls, most recent first (all of them; renderers cap). */
  steps: StoryStep[];
  /**
   * For exec-class calls: where the command runs and, for the paths its command names (at most
   * {@link STORY_NAMED_PATHS}), what exists there now.
   */
  exec: { cwd: string; host: string; paths?: NamedPath[] } | null;
  /** For a sub-agent's call: the parent run and its task. */
  parent: { runId: string; task: string | null } | null;
  /** What could not be read and why (the job was removed, the journal expired). */
  notes: string[];
}

/** A path a command names, as written (relative to its working directory), and what exists there now. */
export interface NamedPath {
  path: string;
  /** `file, 120 bytes`, `folder, 3 entries`, `missing`, or why it was not read. */
  state: string;
}

/** How many paths of a command a story describes (each costs a walk of the workspace). */
export const STORY_NAMED_PATHS = 20;

/** One earlier tool call of the run. */
export interface StoryStep {
  /** 0-based call index within the run. */
  index: number;
  tool: string;
  /** One line about the arguments (cut). */
  summary: string;
  /** The gate's verdict, or null when the audit trail holds none for the call. */
  verdict: "allow" | "deny" | "ask" | null;
  /** Gate step (1–11, 0 = a policy layer) that decided, or null. */
  gateStep: number | null;
  /** How an executed call ended ("success" or an error kind), or null when it did not run. */
  outcome: string | null;
}

/** Reads the story of a request; implemented over the journal by the agent folder, wired in runtime. */
export interface ApprovalStorySource {
  read(record: ApprovalRecord): Promise<ApprovalStory>;
}

/** How many earlier steps a page shows before linking to the full list. */
export const STORY_PAGE_STEPS = 10;
/** How many earlier steps a mail shows. */
export const STORY_MAIL_STEPS = 5;
/** Longest agent text in a mail, characters (the page shows up to the reader's limit). */
export const STORY_MAIL_TEXT_LIMIT = 1500;

/** `text` cut to `max` characters with a note saying how much was left out. */
export function cutWithNote(text: string, max: number, where = "the approval page shows more"): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${text.length - max} more characters cut; ${where})`;
}

/** Defanged links (moved to shared, where the messaging tools use it too). */
export { defangLinks } from "../../shared/index.js";

/** One line per step, as mails and the steps list print it. */
export function describeStep(step: StoryStep): string {
  const verdict =
    step.verdict === null
      ? "no gate decision on record"
      : `${step.verdict} (gate step ${step.gateStep ?? "?"})`;
  const ran =
    step.outcome === null ? "" : step.outcome === "success" ? ", succeeded" : `, failed: ${step.outcome}`;
  return `#${step.index + 1} ${step.tool} ${step.summary} — ${verdict}${ran}`;
}

/** A one-line summary of JSON arguments: `key=value` pairs, values cut, newlines shown as ⏎. */
export function summariseArgs(args: unknown, max = 160): string {
  let line: string;
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    line = Object.entries(args as Record<string, unknown>)
      .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
      .join(" ");
  } else {
    line = typeof args === "string" ? args : (JSON.stringify(args) ?? "");
  }
  line = line.replace(/\r?\n/g, "⏎").replace(/\p{Cc}/gu, " ");
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
