import { DECLARED_TOOLS } from "./catalog.js";
import type { ToolDeclaration } from "./tool-declaration.js";

/**
 * Sets of tools derived from the catalog's fields, so no other module writes them out again: a tool
 * gains a behaviour by a field on its catalog entry, and every set below follows.
 */

type Entry = (typeof DECLARED_TOOLS)[number];
type NamesWith<Field extends keyof ToolDeclaration> = Extract<
  Entry,
  { readonly [F in Field]: unknown }
>["name"];

/** Tools that run commands or code on the exec host (exec, execute_code, process). */
export type ExecClassTool = NamesWith<"execClass">;
/** Tools the run loop carries out itself (the sub-agent tools and clarify). */
export type RunLoopTool = NamesWith<"runsInLoop">;
/** Tools that start or manage sub-agent runs (delegate_task, spawn_task, task, workflow). */
export type SubagentTool = NamesWith<"subagent">;
/** Tools with path arguments the path fence checks. */
export type PathArgumentTool = NamesWith<"pathArguments">;

function namesWith<Field extends keyof ToolDeclaration>(field: Field): readonly NamesWith<Field>[] {
  const names = DECLARED_TOOLS.filter((e) => field in e).map((e) => e.name);
  return Object.freeze(names) as readonly NamesWith<Field>[];
}

/** Tools that run commands or code on the exec host, in catalog order. */
export const EXEC_CLASS_TOOLS = namesWith("execClass");
/** Tools the run loop carries out itself, in catalog order. */
export const RUN_LOOP_TOOLS = namesWith("runsInLoop");
/** Tools that start or manage sub-agent runs, in catalog order. */
export const SUBAGENT_TOOLS = namesWith("subagent");

const PATH_ARGUMENTS: ReadonlyMap<string, NonNullable<ToolDeclaration["pathArguments"]>> = new Map(
  DECLARED_TOOLS.flatMap((e) => ("pathArguments" in e ? [[e.name, e.pathArguments] as const] : [])),
);

/** True for exec, execute_code and process: elevation, allow-always records and the exec host apply. */
export function isExecClassTool(name: string): name is ExecClassTool {
  return (EXEC_CLASS_TOOLS as readonly string[]).includes(name);
}

/** The path arguments of a tool and whether it writes through them; undefined when it has none. */
export function pathArgumentsOf(name: string): ToolDeclaration["pathArguments"] {
  return PATH_ARGUMENTS.get(name);
}
