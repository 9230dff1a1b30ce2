import type { Field, SimpleCommand } from "../shell/index.js";
import {
  DOWNLOADERS,
  type Invocation,
  interpreterInlineFlag,
  isInterpreter,
  programName,
  SHELL_PROGRAMS,
  shellInlineFlag,
} from "../unwrap/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";

/**
 * Soft families about code an interpreter runs: inline code (`python -c`, `bash -c`, `eval`),
 * scripts piped in from another command, and scripts downloaded from the network (`curl | sh`,
 * `bash <(curl ...)`, `sh -c "$(curl ...)"`).
 */

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

function operands(args: readonly Field[]): Field[] {
  return args.filter((a) => !a.text.startsWith("-") || a.text === "-");
}

/** The downloader (curl, wget, ...) among `cmds` or their substitutions, if any. */
export function hasDownloader(cmds: readonly SimpleCommand[]): string | undefined {
  for (const c of cmds) {
    const first = c.argv[0];
    if (first === undefined) continue;
    let name = programName(first);
    // `sudo curl`, `env curl`: look one wrapper deep; the full unwrap runs on those commands anyway.
    if (!DOWNLOADERS.has(name)) {
      const next = c.argv.find((a, i) => i > 0 && !a.text.startsWith("-") && !a.text.includes("="));
      if (next && DOWNLOADERS.has(programName(next))) name = programName(next);
    }
    if (DOWNLOADERS.has(name) || (first.dynamic && /curl|wget/.test(first.text))) return name;
    for (const inner of c.argInner) {
      const found = hasDownloader(inner);
      if (found) return found;
    }
  }
  return undefined;
}

const POWERSHELL_INLINE = /^-(c|command|encodedcommand|ec|e)$/i;

function inlineFindings(inv: Invocation): GuardFinding[] {
  if (inv.name === "eval")
    return [
      softFinding(
        "soft.inline-interpreter",
        `eval runs a string as a command: ${inv.args.map((a) => a.text).join(" ")}`,
      ),
    ];
  if (SHELL_PROGRAMS.has(inv.name)) {
    const flag = shellInlineFlag(inv.args);
    return flag
      ? [softFinding("soft.inline-interpreter", `${describe(inv)} ${flag} runs an inline script`)]
      : [];
  }
  if (inv.name === "deno" && inv.args[0]?.text === "eval")
    return [softFinding("soft.inline-interpreter", "deno eval runs inline code")];
  const flag = interpreterInlineFlag(inv);
  if (flag) return [softFinding("soft.inline-interpreter", `${describe(inv)} ${flag} runs inline code`)];
  if (/^(pwsh|powershell)$/.test(inv.name)) {
    const a = inv.args.find((x) => POWERSHELL_INLINE.test(x.text));
    if (a) return [softFinding("soft.inline-interpreter", `${describe(inv)} ${a.text} runs inline code`)];
  }
  if (/^(awk|gawk|mawk|nawk|busybox-awk)$/.test(inv.name)) {
    const program = inv.args.map((a) => a.text).join(" ");
    if (/\bsystem\s*\(|\|\s*getline|\bprint[^;}]*\|\s*"|\|&/.test(program)) {
      return [softFinding("soft.inline-interpreter", `${inv.name} program runs shell commands`)];
    }
  }
  return [];
}

const STDIN_PATHS = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"]);

function readsScriptFromStdin(inv: Invocation): boolean {
  const ops = operands(inv.args);
  if (inv.name === "source" || inv.name === ".") return STDIN_PATHS.has(ops[0]?.text ?? "");
  if (SHELL_PROGRAMS.has(inv.name) && inv.args.some((a) => /^-[a-z]*c[a-z]*$/i.test(a.text))) return false;
  if (SHELL_PROGRAMS.has(inv.name) && inv.args.some((a) => a.text === "-s")) return true;
  if (inv.name === "deno" || inv.name === "bun") return false;
  return ops.length === 0 || STDIN_PATHS.has(ops[0]?.text ?? "");
}

/** Soft rules about where an interpreter gets its code: inline, piped, downloaded. */
export function interpreterFindings(inv: Invocation): GuardFinding[] {
  return [...scriptSourceFindings(inv), ...inlineFindings(inv)];
}

function scriptSourceFindings(inv: Invocation): GuardFinding[] {
  if (!isInterpreter(inv.name) && inv.name !== "eval" && inv.name !== "xargs") return [];
  const src = inv.source;
  const out: GuardFinding[] = [];
  if (
    isInterpreter(inv.name) &&
    readsScriptFromStdin(inv) &&
    !inv.via.includes("xargs") &&
    !inv.via.includes("find")
  ) {
    if (src.upstream.length > 0) {
      const dl = hasDownloader(src.upstream);
      out.push(
        dl
          ? softFinding("soft.remote-script", `a script downloaded with ${dl} is piped into ${inv.name}`)
          : softFinding(
              "soft.piped-interpreter",
              `${inv.name} runs a script produced by another command (${src.upstream.map((u) => u.argv[0]?.text ?? "").join(" | ")})`,
            ),
      );
    }
    if (src.stdinText.length > 0) {
      const dl = hasDownloader(src.stdinInner);
      out.push(
        dl
          ? softFinding("soft.remote-script", `a script downloaded with ${dl} is fed to ${inv.name}`)
          : softFinding(
              "soft.piped-interpreter",
              `${describe(inv)} runs code given on its standard input (a here-document or here-string)`,
            ),
      );
    }
    for (const r of src.redirects) {
      if ((r.op === "<" || r.op === "<&") && r.target.some((t) => t.dynamic)) {
        const dl = hasDownloader(r.inner);
        out.push(
          dl
            ? softFinding("soft.remote-script", `a script downloaded with ${dl} is fed to ${inv.name}`)
            : softFinding("soft.piped-interpreter", `${inv.name} runs a script produced by another command`),
        );
      }
    }
  }
  // `bash <(curl ...)`, `sh -c "$(curl ...)"`, `source <(wget -O- ...)`, `eval "$(curl ...)"`.
  const argIndex = (f: Field) => src.argv.indexOf(f);
  for (const a of inv.args) {
    const idx = argIndex(a);
    const inner = idx >= 0 ? (src.argInner[idx] ?? []) : [];
    if (inner.length === 0) continue;
    const dl = hasDownloader(inner);
    if (dl) {
      out.push(softFinding("soft.remote-script", `a script downloaded with ${dl} is run by ${inv.name}`));
      break;
    }
    // `python3 <(printf 'code')`, `bash <(echo cmd)`, `source <(...)`: the script is another command's output.
    if (
      a === operands(inv.args)[0] &&
      (inv.name === "source" || inv.name === "." || (isInterpreter(inv.name) && /^[<>]\(/.test(a.text)))
    ) {
      out.push(
        softFinding("soft.piped-interpreter", `${inv.name} runs a script produced by another command`),
      );
      break;
    }
  }
  return out;
}
