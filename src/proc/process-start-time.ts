import { readFileSync } from "node:fs";

/**
 * A process's start time (field 22 of /proc/<pid>/stat, clock ticks since boot), or undefined when
 * it is gone. A pid and its start time name one process for good: the kernel reuses pids, never
 * the pair, so a record holding both tells a live owner from a stranger given the same pid.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
