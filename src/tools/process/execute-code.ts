import { accessSync, constants } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure } from "../../catalog/index.js";
import { SANDBOX_CODE_DIR, SANDBOX_PATH } from "../sandbox/index.js";
import { BASH_FLAGS, locateBash } from "./bash-shell.js";
import { execToolTimeoutSeconds, resolveTimeout } from "./call-limits.js";
import { foregroundCallFields, runForegroundCall } from "./foreground-call.js";
import { execReadiness } from "./host-launch.js";
import { cwdPermission, resolveProcessCwd } from "./process-cwd.js";
import type { ProcessToolOptions } from "./process-tool-options.js";

/** Languages execute_code runs, each by an interpreter found on PATH. */
export const CODE_LANGUAGES = ["node", "python3", "bash"] as const;
export type CodeLanguage = (typeof CODE_LANGUAGES)[number];

// node runs the file as an ES module (top-level await works); the others by their usual suffix.
const FILE_NAMES: Readonly<Record<CodeLanguage, string>> = {
  node: "main.mjs",
  python3: "main.py",
  bash: "main.sh",
};

const ExecuteCodeParams = Type.Object(
  {
    language: Type.Enum(CODE_LANGUAGES, { description: "node (an ES module), python3 or bash" }),
    code: Type.String({ minLength: 1, maxLength: 1_048_576, description: "The program's source" }),
    ...foregroundCallFields("program"),
  },
  { additionalProperties: false },
);
export type ExecuteCodeArgs = Static<typeof ExecuteCodeParams>;

/** Options for {@link createExecuteCodeTool}: the exec-class options plus where temp files go. */
export interface ExecuteCodeToolOptions extends ProcessToolOptions {
  /** Parent of the per-call temp directories (default: the OS temp directory). */
  tempDir?: string;
}

/** The absolute path of each language's interpreter on `path` (PATH syntax), when present. */
export function findInterpreters(path: string | undefined): Partial<Record<CodeLanguage, string>> {
  const found: Partial<Record<CodeLanguage, string>> = {};
  const dirs = (path ?? "").split(delimiter).filter((d) => d.startsWith("/"));
  // bash is the one bash-shell located (fixed directories, never a PATH entry), run without rc files.
  const bash = locateBash();
  if (bash !== undefined) found.bash = bash.path;
  for (const language of CODE_LANGUAGES) {
    if (language === "bash") continue;
    for (const dir of dirs) {
      const candidate = join(dir, language);
      try {
        accessSync(candidate, constants.X_OK);
        found[language] = candidate;
        break;
      } catch {}
    }
  }
  return found;
}

/**
 * `execute_code`: runs a snippet of node, python3 or bash. The code is written to a file in a new
 * private temp directory and the interpreter runs that file (never `-c` / `-e`: the source is
 * never a command-line argument, so it cannot be mangled by quoting or seen in `ps`). It runs like
 * `exec`: its own process group in the workspace, scrubbed environment, group kill at the
 * timeout, capped output; the temp directory is removed afterwards.
 */
export function createExecuteCodeTool(options: ExecuteCodeToolOptions): Tool<typeof ExecuteCodeParams> {
  const { limits } = options;
  // In the sandbox only the system's interpreters exist (the worker's PATH may point into /root or /home).
  const interpreters = findInterpreters(options.execHost === "sandbox" ? SANDBOX_PATH : options.env.PATH);
  const available = CODE_LANGUAGES.filter((l) => interpreters[l] !== undefined);
  return defineTool({
    name: "execute_code",
    description:
      "Run a program written in node (ES module), python3 or bash in the workspace and return its combined stdout and stderr.",
    parameters: ExecuteCodeParams,
    timeoutSeconds: execToolTimeoutSeconds(limits),
    readinessDetail() {
      const host = execReadiness(options.execHost, options.sandbox);
      if (!host.ready) return host;
      if (available.length === 0) {
        return { ready: false, detail: `none of ${CODE_LANGUAGES.join(", ")} is on the worker's PATH` };
      }
      return { ready: true, detail: `ready (${available.join(", ")})` };
    },
    checkPermissions: (args, ctx) => cwdPermission(options, ctx, args.cwd),
    async execute(args, ctx) {
      const interpreter = interpreters[args.language];
      if (interpreter === undefined) {
        return toolFailure(
          "business",
          `${args.language} is not installed on this worker; available: ${available.join(", ") || "none"}`,
        );
      }
      const timeout = resolveTimeout(limits, args.timeout_seconds);
      if (!timeout.ok) return timeout.result;
      const cwd = await resolveProcessCwd(options, ctx, args.cwd);
      if (!cwd.ok) return cwd.result;
      const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), "echo-code-"));
      try {
        const file = join(dir, FILE_NAMES[args.language]);
        await writeFile(file, args.code, { mode: 0o600, flag: "wx" });
        // In the sandbox the source directory is mounted read-only at SANDBOX_CODE_DIR.
        const inside =
          options.execHost === "sandbox" ? join(SANDBOX_CODE_DIR, FILE_NAMES[args.language]) : file;
        const argv = args.language === "bash" ? [...BASH_FLAGS, inside] : [inside];
        return await runForegroundCall(options, ctx, {
          cwd: cwd.path,
          command: [interpreter, ...argv],
          codeDir: dir,
          ...(args.stdin === undefined ? {} : { stdin: args.stdin }),
          timeoutSeconds: timeout.seconds,
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  });
}
