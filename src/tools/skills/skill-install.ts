import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import Type from "typebox";
import {
  defineTool,
  type Tool,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from "../../catalog/index.js";
import type { Clock } from "../../shared/index.js";
import { readHeldFile } from "../beneath/held-read.js";
import { resolveInside } from "../inside-path.js";
import {
  declaredInstallScripts,
  integrityProblem,
  matchesIntegrity,
  packageBaseName,
  SKILL_PACKAGE_LIMITS,
  type StageOutcome,
  stageFolder,
  stageTarball,
} from "./skill-package.js";
import {
  INSTALL_RECORD,
  parseSkillFile,
  SKILL_FILE,
  skillNameProblem,
  skillsReadiness,
} from "./skill-store.js";

/** Where skill_install takes a skill from. */
export const SKILL_SOURCES = ["folder", "tarball"] as const;
export type SkillSource = (typeof SKILL_SOURCES)[number];

const SkillInstallParams = Type.Object(
  {
    source: Type.Enum(SKILL_SOURCES, { description: "folder: a skill folder; tarball: an npm pack .tgz" }),
    path: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: "The folder or tarball, inside the workspace",
    }),
    integrity: Type.Optional(
      Type.String({
        minLength: 10,
        maxLength: 200,
        description:
          'Required for a tarball: its Subresource Integrity hash, e.g. "sha512-..." as npm prints it',
      }),
    ),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Install under this name" })),
    replace: Type.Optional(Type.Boolean({ description: "Replace an installed skill of the same name" })),
  },
  { additionalProperties: false },
);

/** What skill_install is built from. */
export interface SkillInstallOptions {
  readonly skillsDir: string | undefined;
  readonly clock: Clock;
}

/**
 * `skill_install` (dangerous): installs a skill from a folder or an npm tarball inside the run's
 * workspace. The package is checked before anything is installed (a tarball against the integrity
 * hash the approver saw; only regular files and folders; caps), staged under the skills directory and
 * moved into place in one rename. No script of the package is ever run. Idempotent: a replay of the
 * same call finds its own install record and changes nothing.
 */
export function createSkillInstallTool(options: SkillInstallOptions): Tool<typeof SkillInstallParams> {
  const { skillsDir } = options;
  return defineTool({
    name: "skill_install",
    description:
      "Install a skill from a folder or an npm tarball (.tgz) in the workspace. Package scripts never run.",
    parameters: SkillInstallParams,
    riskLevel: "dangerous",
    idempotent: true,
    timeoutSeconds: 120,
    readinessDetail: () => skillsReadiness(skillsDir),
    async execute(args, ctx) {
      if (!skillsDir) return toolFailure("not_ready", skillsReadiness(skillsDir).detail);
      if (args.source === "tarball") {
        if (!args.integrity)
          return invalid("integrity", "is required for a tarball (the hash the approver checks)");
        const problem = integrityProblem(args.integrity);
        if (problem) return invalid("integrity", problem);
      }
      if (args.name !== undefined) {
        const problem = skillNameProblem(args.name);
        if (problem) return invalid("name", problem);
      }
      const source = await resolveInside(ctx.workspace, args.path);
      if (!source.ok) return toolFailure("denied", `skill_install: ${source.problem}`);
      await mkdir(skillsDir, { recursive: true });
      const staging = join(skillsDir, `.install-${randomBytes(6).toString("hex")}`);
      try {
        return await install(skillsDir, staging, source.path, args, ctx);
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },
  });

  async function install(
    dir: string,
    staging: string,
    sourcePath: string,
    args: { source: SkillSource; path: string; integrity?: string; name?: string; replace?: boolean },
    ctx: ToolExecutionContext,
  ): Promise<ToolResult> {
    let staged: StageOutcome;
    if (args.source === "folder") {
      if (!(await stat(sourcePath)).isDirectory())
        return toolFailure("business", `${args.path} is not a folder`);
      staged = await stageFolder(sourcePath, staging);
    } else {
      // Read once, through the held parent of the checked path, into a copy only the runner can
      // write: the bytes hashed are the bytes listed and extracted, whatever the workspace does meanwhile.
      const read = await readHeldFile(sourcePath, SKILL_PACKAGE_LIMITS.maxBytes);
      if (read.kind === "too_large")
        return toolFailure("business", `${args.path} is larger than ${SKILL_PACKAGE_LIMITS.maxBytes} bytes`);
      if (read.kind !== "file") return toolFailure("business", `${args.path} is not a regular file`);
      if (!matchesIntegrity(read.bytes, args.integrity ?? "")) {
        return toolFailure(
          "denied",
          `skill_install: ${args.path} does not match the integrity hash ${args.integrity}`,
        );
      }
      const copy = `${staging}.tgz`;
      await writeFile(copy, read.bytes, { flag: "wx", mode: 0o600 });
      try {
        staged = await stageTarball(copy, staging);
      } finally {
        await rm(copy, { force: true });
      }
    }
    if (!staged.ok) return toolFailure("business", `skill_install refused ${args.path}: ${staged.problem}`);
    const skillText = await readFile(join(staging, SKILL_FILE), "utf8").catch(() => undefined);
    if (skillText === undefined)
      return toolFailure("business", `skill_install refused ${args.path}: it has no ${SKILL_FILE}`);
    const meta = parseSkillFile(skillText);
    if (!meta.ok) return toolFailure("business", `skill_install refused ${args.path}: ${meta.problem}`);
    const fallback = args.source === "tarball" ? await packageBaseName(staging) : basename(sourcePath);
    const name = args.name ?? meta.name ?? fallback ?? "";
    const nameProblem = skillNameProblem(name);
    if (nameProblem)
      return toolFailure("business", `skill_install: ${nameProblem}; pass "name" to choose one`);
    const scripts = await declaredInstallScripts(staging);
    const target = join(dir, name);
    const existing = await readInstallRecord(target);
    if (existing?.idempotencyKey === ctx.idempotencyKey) {
      return toolSuccess(`Skill ${name} is already installed by this call.`, {
        name,
        digest: existing.digest,
        replay: true,
      });
    }
    const present = await stat(target).catch(() => undefined);
    if (present && !args.replace) {
      return toolFailure(
        "business",
        `a skill named "${name}" is already installed; pass replace: true to replace it`,
      );
    }
    const record = {
      v: 1,
      name,
      source: args.source,
      path: args.path,
      digest: staged.digest,
      files: staged.files,
      bytes: staged.bytes,
      scriptsNotRun: scripts,
      installedAt: new Date(options.clock.now()).toISOString(),
      idempotencyKey: ctx.idempotencyKey,
    };
    await writeFile(join(staging, INSTALL_RECORD), `${JSON.stringify(record, null, 2)}\n`);
    if (present) {
      const old = join(dir, `.removed-${name}-${randomBytes(4).toString("hex")}`);
      await rename(target, old);
      await rename(staging, target);
      await rm(old, { recursive: true, force: true });
    } else {
      await rename(staging, target);
    }
    const lines = [
      `Installed skill ${name} from ${args.source} ${args.path} (${staged.files} files, ${staged.digest}): ${meta.description}`,
    ];
    if (scripts.length > 0) lines.push(`Package scripts were not run: ${scripts.join(", ")}.`);
    return toolSuccess(lines.join("\n"), {
      name,
      digest: staged.digest,
      files: staged.files,
      scriptsNotRun: scripts,
    });
  }
}

async function readInstallRecord(
  dir: string,
): Promise<{ idempotencyKey?: string; digest?: string } | undefined> {
  const text = await readFile(join(dir, INSTALL_RECORD), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as { idempotencyKey?: string; digest?: string };
  } catch {
    return undefined;
  }
}

function invalid(field: string, problem: string): ToolResult {
  return toolFailure("validation", `Invalid arguments for tool "skill_install": ${field}: ${problem}`, {
    fields: [{ field, problem }],
  });
}
