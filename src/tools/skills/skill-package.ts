import { createHash } from "node:crypto";
import { lstat, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { extract, list } from "tar";
import { HeldDir } from "../beneath/held-dir.js";
import { openHeldFile } from "../beneath/held-read.js";
import { DISABLED_MARKER, INSTALL_RECORD } from "./skill-store.js";

/** Caps of one skill package. */
export const SKILL_PACKAGE_LIMITS = Object.freeze({ maxFiles: 2_000, maxBytes: 50 * 1024 * 1024 });

/** npm lifecycle scripts that `npm install` would run; skill_install never runs any script. */
export const INSTALL_SCRIPT_NAMES = [
  "preinstall",
  "install",
  "postinstall",
  "prepare",
  "prepublish",
] as const;

/** A staged package, or why it was refused. */
export type StageOutcome =
  | { ok: true; files: number; bytes: number; digest: string }
  | { ok: false; problem: string };

const SKIPPED = new Set([DISABLED_MARKER, INSTALL_RECORD, ".git"]);
const SRI = /^(sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})$/;

/** Why `integrity` is not a usable SRI string (sha256/384/512), or undefined. */
export function integrityProblem(integrity: string): string | undefined {
  return SRI.test(integrity)
    ? undefined
    : 'must be a Subresource Integrity string such as "sha512-<base64>" (as npm prints it)';
}

/** True when `bytes` match the SRI string. */
export function matchesIntegrity(bytes: Buffer, integrity: string): boolean {
  const match = SRI.exec(integrity);
  if (!match) return false;
  return (
    createHash(match[1] as string)
      .update(bytes)
      .digest("base64") === match[2]
  );
}

/**
 * Copies a skill folder into `staging`: regular files and folders only (a symlink or device file
 * anywhere refuses the whole folder, since it could point outside), under the file and byte caps;
 * the store's own markers and `.git` are skipped. The digest is SHA-256 over every path and content.
 * `source` is a real path (resolved inside the workspace); the folder is walked by descriptor from
 * it, never through a link, and each file's bytes are read once, from the file checked.
 */
export async function stageFolder(source: string, staging: string): Promise<StageOutcome> {
  const hash = createHash("sha256");
  let files = 0;
  let bytes = 0;
  const walk = async (dir: HeldDir, rel: string): Promise<string | undefined> => {
    const names = (await readdir(dir.self)).sort();
    await mkdir(join(staging, rel), { recursive: true });
    for (const name of names) {
      if (SKIPPED.has(name)) continue;
      const path = rel === "" ? name : `${rel}/${name}`;
      const stat = await lstat(dir.entry(name));
      if (stat.isDirectory()) {
        const child = dir.child(name);
        try {
          const problem = await walk(child, path);
          if (problem) return problem;
        } finally {
          child.close();
        }
      } else if (stat.isFile()) {
        const file = await openHeldFile(dir, name);
        if (file === undefined) return `${path} changed while it was being copied; nothing was installed`;
        let content: Buffer;
        try {
          content = await file.readFile();
        } finally {
          await file.close();
        }
        files++;
        bytes += content.length;
        if (files > SKILL_PACKAGE_LIMITS.maxFiles) return `more than ${SKILL_PACKAGE_LIMITS.maxFiles} files`;
        if (bytes > SKILL_PACKAGE_LIMITS.maxBytes) return `more than ${SKILL_PACKAGE_LIMITS.maxBytes} bytes`;
        await writeFile(join(staging, path), content, { flag: "wx" });
        hash.update(`${path}\0`).update(content);
      } else {
        return `${path} is a ${stat.isSymbolicLink() ? "symbolic link" : "special file"}; only regular files and folders are installed`;
      }
    }
    return undefined;
  };
  const root = HeldDir.open(source);
  let problem: string | undefined;
  try {
    problem = await walk(root, "");
  } finally {
    root.close();
  }
  return problem
    ? { ok: false, problem }
    : { ok: true, files, bytes, digest: `sha256-${hash.digest("base64")}` };
}

/**
 * Checks an npm tarball (`npm pack` output) and extracts it into `staging`: every entry must be a
 * regular file or folder under `package/` with no `..` and no absolute path, within the caps.
 * The entries are checked in a first pass, so nothing is written from a tarball that fails.
 */
export async function stageTarball(file: string, staging: string): Promise<StageOutcome> {
  let problem: string | undefined;
  let files = 0;
  let bytes = 0;
  try {
    await list({
      file,
      strict: true,
      onReadEntry: (entry) => {
        if (problem) return;
        const path = entry.path;
        if (!path.startsWith("package/") || path.split("/").includes("..") || path.includes("\\")) {
          problem = `entry ${JSON.stringify(path)} is not inside package/`;
        } else if (entry.type === "File" || entry.type === "OldFile") {
          files++;
          bytes += entry.size ?? 0;
          if (files > SKILL_PACKAGE_LIMITS.maxFiles)
            problem = `more than ${SKILL_PACKAGE_LIMITS.maxFiles} files`;
          if (bytes > SKILL_PACKAGE_LIMITS.maxBytes)
            problem = `more than ${SKILL_PACKAGE_LIMITS.maxBytes} bytes`;
        } else if (entry.type !== "Directory") {
          problem = `entry ${JSON.stringify(path)} is a ${entry.type}; only regular files and folders are installed`;
        }
      },
    });
  } catch (err) {
    return { ok: false, problem: `not a readable tar archive: ${(err as Error).message}` };
  }
  if (problem) return { ok: false, problem };
  await mkdir(staging, { recursive: true });
  await extract({
    file,
    cwd: staging,
    strip: 1,
    strict: true,
    // Permissions and owners come from the archive's author; the store's own rules apply instead.
    preserveOwner: false,
    noChmod: true,
    filter: (path) => !SKIPPED.has(path.split("/").at(-1) ?? ""),
  });
  const digest = createHash("sha512")
    .update(await readFile(file))
    .digest("base64");
  return { ok: true, files, bytes, digest: `sha512-${digest}` };
}

/** The lifecycle scripts a staged package.json declares (reported, never run). */
export async function declaredInstallScripts(staging: string): Promise<string[]> {
  const text = await readFile(join(staging, "package.json"), "utf8").catch(() => undefined);
  if (text === undefined) return [];
  try {
    const scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {};
    return INSTALL_SCRIPT_NAMES.filter((name) => typeof scripts[name] === "string");
  } catch {
    return [];
  }
}

/** The package name of a staged package.json without its scope, or undefined. */
export async function packageBaseName(staging: string): Promise<string | undefined> {
  const text = await readFile(join(staging, "package.json"), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const name = (JSON.parse(text) as { name?: unknown }).name;
    return typeof name === "string" ? name.replace(/^@[^/]+\//, "") : undefined;
  } catch {
    return undefined;
  }
}
