import type { Invocation } from "../unwrap/index.js";
import {
  gitCommandLine,
  gitCommandLineSettings,
  hasOption,
  invocationEnv,
  judgeGitSettings,
  optionSpec,
  optionValuesOf,
  type ReadArgs,
  readOptions,
} from "../unwrap/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";

/**
 * Soft families about git: configuration that makes git run or load code (read from `-c`,
 * `--config-env`, `--exec-path`), and commands that destroy history or uncommitted work for good
 * (`reset --hard`, forced pushes in every spelling, `clean -f`, `branch -D`, `filter-branch`,
 * `reflog expire`). Options are read with git's own tables, so `push --forc` and `-fu` count.
 */

function read(sub: string, args: Invocation["args"]): ReadArgs | undefined {
  const spec = optionSpec(`git ${sub}`);
  return spec ? readOptions(args, spec) : undefined;
}

/** Why a git subcommand destroys history or work, or undefined. */
function historyDestruction(sub: string, args: Invocation["args"]): string | undefined {
  const texts = args.map((a) => a.text);
  switch (sub) {
    case "reset": {
      const r = read(sub, args);
      return r && hasOption(r, "--hard") ? "reset --hard throws away uncommitted changes" : undefined;
    }
    case "push": {
      const r = read(sub, args);
      if (!r) return undefined;
      if (hasOption(r, "--force", "--force-with-lease", "--mirror"))
        return "a forced push overwrites history on the remote";
      if (hasOption(r, "--delete") || optionValuesOf(r, "--delete").length > 0)
        return "push --delete removes branches on the remote";
      // `+main`, `+HEAD:main` force one ref; `:main` deletes it.
      const refspec = r.operands.slice(1).find((o) => /^[+:]/.test(o.text));
      if (refspec)
        return refspec.text.startsWith("+")
          ? `the refspec ${refspec.text} forces a push that overwrites history on the remote`
          : `the refspec ${refspec.text} deletes a branch on the remote`;
      return undefined;
    }
    case "clean": {
      const r = read(sub, args);
      if (!r) return undefined;
      return hasOption(r, "--force") && !hasOption(r, "--dry-run")
        ? "clean -f deletes untracked files for good"
        : undefined;
    }
    case "branch": {
      const r = read(sub, args);
      if (!r) return undefined;
      const del = hasOption(r, "--delete") && hasOption(r, "--force");
      return del || hasOption(r, "-D")
        ? "branch -D deletes a branch whether or not it was merged"
        : undefined;
    }
    case "checkout":
      return hasOption(read(sub, args) ?? { options: [], operands: [] }, "--force")
        ? "checkout --force throws away uncommitted changes"
        : undefined;
    case "filter-branch":
    case "filter-repo":
      return `${sub} rewrites the whole history`;
    case "reflog":
      return texts[0] === "expire" || texts[0] === "delete"
        ? `reflog ${texts[0]} removes the record that lets lost commits be recovered`
        : undefined;
    case "stash":
      return texts[0] === "clear" || texts[0] === "drop"
        ? `stash ${texts[0]} deletes stashed work`
        : undefined;
    case "update-ref":
      return texts.includes("-d") ? "update-ref -d deletes a ref" : undefined;
    default:
      return undefined;
  }
}

/** Soft rules over one git invocation. */
export function gitFindings(inv: Invocation): GuardFinding[] {
  if (inv.name !== "git") return [];
  const line = gitCommandLine(inv.args);
  const fromLine = gitCommandLineSettings(line, invocationEnv(inv));
  const out = [...fromLine.findings, ...judgeGitSettings(fromLine.settings).findings];
  if (line.subcommand !== undefined) {
    const why = historyDestruction(line.subcommand.toLowerCase(), line.args);
    if (why) out.push(softFinding("soft.git-history", `git ${line.subcommand}: ${why}`));
  }
  return out;
}
