import { posix } from "node:path";
import { normaliseTarget, writeTargets } from "../paths/index.js";
import type { Assignment } from "../shell/index.js";
import { type Field, literalField } from "../shell/index.js";
import { type Invocation, programName } from "../unwrap/index.js";
import { type GuardFinding, hardFinding, softFinding } from "../verdict/index.js";
import { hardInvocationFindings, isWriteRedirect } from "./hard-families.js";
import { HARD_PROGRAMS } from "./indirect-families.js";

/**
 * A program the command line itself wrote, copied or linked, run under a new name
 * (`cp /bin/rm ./x && ./x -rf ~`, `ln -s /sbin/reboot t; ./t`, `cp /bin/rm bin/tr;
 * PATH=bin:$PATH; tr -rf ~`): what it is cannot be known from its name, so running it asks, and
 * when it is a copy of a program a hard family keys on, it is judged as that program (denied).
 * A `PATH` the line sets is followed for names without a slash.
 */

const COPIERS = new Set(["cp", "install", "ln", "mv", "rsync"]);

function operands(args: readonly Field[]): Field[] {
  return args.filter((a) => !a.text.startsWith("-"));
}

export class WrittenPrograms {
  /** Normalised path written → the program it is a copy of, when known. */
  private readonly written = new Map<string, string | undefined>();
  private readonly pathDirs = new Set<string>();
  /** Programs run: by path, or by a name looked up in PATH (resolved at the end, when PATH is known). */
  private readonly runs: Array<{ path: string | undefined; inv: Invocation }> = [];

  /** `PATH=bin:$PATH`: the directories a later name is looked up in first. */
  observeAssignments(assignments: readonly Assignment[]): void {
    for (const a of assignments) {
      if (a.name !== "PATH") continue;
      for (const dir of a.value.text.split(":"))
        if (dir !== "" && !dir.startsWith("$"))
          this.pathDirs.add(normaliseTarget(literalField(dir), undefined));
    }
  }

  /** Records what `inv` writes (and copies from), and what it runs. */
  observe(inv: Invocation): void {
    const cwd = inv.source.cwd;
    const name = inv.nameField.text;
    // A name without a slash is resolved at the end, against the PATH the line set (if any).
    this.runs.push({ path: name.includes("/") ? normaliseTarget(inv.nameField, cwd) : undefined, inv });
    if (COPIERS.has(inv.name)) {
      const ops = operands(inv.args);
      const dest = ops[ops.length - 1];
      if (dest && ops.length >= 2) {
        for (const source of ops.slice(0, -1)) {
          const from = source.dynamic ? undefined : programName(source);
          const into = dest.text.endsWith("/") ? `${dest.text}${posix.basename(source.text)}` : dest.text;
          this.written.set(normaliseTarget({ ...dest, text: into }, cwd), from);
          // `cp /bin/rm dir` copies into dir when it is a directory.
          this.written.set(
            normaliseTarget({ ...dest, text: `${dest.text}/${posix.basename(source.text)}` }, cwd),
            from,
          );
        }
      }
    }
    for (const f of writeTargets(inv)) {
      const path = normaliseTarget(f, cwd);
      if (!this.written.has(path)) this.written.set(path, undefined);
    }
    for (const r of inv.source.redirects)
      if (isWriteRedirect(r))
        for (const t of r.target) {
          const path = normaliseTarget(t, cwd);
          if (!this.written.has(path)) this.written.set(path, undefined);
        }
  }

  /** Findings for runs of a program the line wrote. */
  findings(): GuardFinding[] {
    const out: GuardFinding[] = [];
    if (this.written.size === 0) return out;
    const named = this.runs.flatMap(({ path, inv }) =>
      path !== undefined
        ? [{ path, inv }]
        : [...this.pathDirs].map((dir) => ({ path: posix.join(dir, programName(inv.nameField)), inv })),
    );
    for (const run of named) {
      if (!this.written.has(run.path)) continue;
      const from = this.written.get(run.path);
      out.push(
        softFinding(
          "soft.computed-command",
          `${run.inv.nameField.text} runs ${run.path}, which the command itself wrote${from ? ` (a copy of ${from})` : ""}: what it runs is not known from its name`,
        ),
      );
      if (from && HARD_PROGRAMS.test(from)) {
        const asCopy: Invocation = { ...run.inv, name: from, nameField: literalField(from) };
        for (const f of hardInvocationFindings(asCopy))
          if (f.verdict === "deny")
            out.push(
              hardFinding(
                f.rule as Parameters<typeof hardFinding>[0],
                `${run.path} is a copy of ${from}: ${f.reason}`,
              ),
            );
      }
    }
    return out;
  }
}
