import type { ChangeSet, LayerChange } from "./change-set.js";

/**
 * Whether a run's change set may land by itself or waits for a person, and why. Pure: a function
 * of the change set alone. An ordinary change set (files written and edited, a few removed, build
 * output) lands; one that deletes many paths, touches `.git/`, writes a file that runs code on
 * someone else's machine (shell rc files, `.envrc`, `.npmrc`, CI workflows, hooks anywhere), sets a
 * setuid or setgid bit, or makes a link that leads out of the workspace waits.
 */

/** Deletions a change set may make before a person looks at it. */
export const LANDING_DELETE_LIMIT = 20;

/** Why a change set waits for a person (one line each, naming the paths). */
export interface ChangeReview {
  readonly needsPerson: boolean;
  readonly reasons: readonly string[];
}

const RUNS_ELSEWHERE: readonly { test: RegExp; what: string }[] = [
  { test: /(^|\/)\.git(\/|$)/, what: "git's own folder (hooks, config, refs, HEAD)" },
  {
    test: /(^|\/)\.(bash(rc|_profile|_login|_logout)|profile|zshrc|zprofile|zshenv|zlogin|kshrc|cshrc|tcshrc|inputrc)$/,
    what: "a shell start-up file",
  },
  { test: /(^|\/)\.config\/fish\//, what: "a shell start-up file" },
  { test: /(^|\/)\.envrc$/, what: "direnv's .envrc (runs on cd)" },
  {
    test: /(^|\/)\.(npmrc|yarnrc|yarnrc\.yml|pnpmrc|pypirc|netrc|gitconfig)$/,
    what: "a package manager or git config (scripts, registries, credentials)",
  },
  { test: /(^|\/)\.github\/workflows\//, what: "a CI workflow" },
  {
    test: /(^|\/)(\.gitlab-ci\.yml|\.travis\.yml|azure-pipelines\.yml|Jenkinsfile|bitbucket-pipelines\.yml|\.drone\.yml)$/,
    what: "a CI workflow",
  },
  { test: /(^|\/)\.(circleci|buildkite)\//, what: "a CI workflow" },
  { test: /(^|\/)(\.husky|\.githooks|hooks)\//, what: "a git hook" },
  { test: /(^|\/)\.pre-commit-config\.yaml$/, what: "a git hook configuration" },
  { test: /(^|\/)\.vscode\/(tasks|launch|settings)\.json$/, what: "an editor task that runs commands" },
];

/**
 * What `git status`, `git add` and `git commit-tree` write without changing what runs or what a
 * branch points at: the index (a cache of the working tree) and new objects (content-addressed,
 * reachable only through refs, which still need a person). Deleting either is not ordinary.
 */
function isGitCache(change: LayerChange): boolean {
  if (change.kind === "write" && /(^|\/)\.git\/index$/.test(change.path)) return true;
  if (change.kind === "write" && change.existed) return false;
  if (change.kind !== "write" && change.kind !== "mkdir") return false;
  return /(^|\/)\.git\/objects(\/[0-9a-f]{2}(\/[0-9a-f]{38,62})?)?$/.test(change.path);
}

function leadsOut(path: string, target: string): boolean {
  if (target.startsWith("/")) return true;
  let depth = path.split("/").length - 1;
  for (const part of target.split("/")) {
    if (part === "..") depth--;
    else if (part !== "" && part !== ".") depth++;
    if (depth < 0) return true;
  }
  return false;
}

function setsSpecialBits(change: LayerChange): boolean {
  return (change.kind === "write" || change.kind === "mkdir") && (change.mode & 0o6000) !== 0;
}

export function reviewChangeSet(set: ChangeSet): ChangeReview {
  const reasons: string[] = [];
  const byWhat = new Map<string, string[]>();
  for (const change of set.changes) {
    if (isGitCache(change)) continue;
    for (const rule of RUNS_ELSEWHERE) {
      if (!rule.test.test(change.path)) continue;
      byWhat.set(rule.what, [...(byWhat.get(rule.what) ?? []), change.path]);
      break;
    }
  }
  for (const [what, paths] of byWhat) reasons.push(`touches ${what}: ${sample(paths)}`);
  const deletes = set.changes.filter((c) => c.kind === "delete").map((c) => c.path);
  if (deletes.length > LANDING_DELETE_LIMIT)
    reasons.push(`deletes ${deletes.length} paths (more than ${LANDING_DELETE_LIMIT}): ${sample(deletes)}`);
  const special = set.changes.filter(setsSpecialBits).map((c) => c.path);
  if (special.length > 0) reasons.push(`sets a setuid or setgid bit: ${sample(special)}`);
  const out = set.changes
    .filter((c): c is LayerChange & { kind: "symlink" } => c.kind === "symlink" && leadsOut(c.path, c.target))
    .map((c) => `${c.path} -> ${c.target}`);
  if (out.length > 0) reasons.push(`makes links that lead out of the workspace: ${sample(out)}`);
  return { needsPerson: reasons.length > 0, reasons };
}

function sample(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).join(", ");
  return paths.length > 5 ? `${shown} and ${paths.length - 5} more` : shown;
}
