import type { SimpleCommand } from "../shell/index.js";
import { type Field, literalField } from "../shell/index.js";
import { type Invocation, programName } from "../unwrap/index.js";
import { type GuardFinding, type HardRule, hardFinding, softFinding } from "../verdict/index.js";
import { hardInvocationFindings, hardRedirectFindings } from "./hard-families.js";
import { HARD_PROGRAMS } from "./indirect-families.js";

/**
 * What the guard says about text it stopped analysing at a limit (script nesting, wrapper depth,
 * the walk's node limit, the parse budget) or whose meaning depends on shell state it does not
 * follow (see shell-state): it is too complex to judge (ask, never allow), and it is denied when
 * a hard command could be hidden in it. The text is read as plain words — quotes,
 * backslashes and braces dropped, split at every shell operator — and each word that names a hard
 * program starts an invocation the hard families judge (`env -S` nested past the limit around
 * `rm -rf /` is `rm -rf /`). That reading over-approximates what any nesting of quotes could
 * unwrap to, so it only ever adds findings. Linear in the text.
 */

const SEPARATORS = /[;&|()\n`]|\$\(/;
const DROPPED = /["'\\{}]/g;
/** Words looked at after a hard program name (its options and operands). */
const MAX_WORDS = 64;

function sourceOf(argv: Field[], redirects: SimpleCommand["redirects"] = []): SimpleCommand {
  return {
    argv,
    argInner: argv.map(() => []),
    assignments: [],
    redirects,
    stdinText: [],
    stdinInner: [],
    upstream: [],
    cwd: undefined,
  };
}

/**
 * One scan for the common case: no hard program name (after a separator, quote, `=`, `,` or the
 * `-` / `+` / `?` of `${x:-word}`, in any case) and no `>`.
 */
const MAYBE_HARD = new RegExp(
  `>|(?:^|[\\s;&|()\`'"\\\\{}=/,+?-])${HARD_PROGRAMS.source.replace(/^\^|\$$/g, "")}(?=$|[\\s;&|()\`'"\\\\{},])`,
  "i",
);
/**
 * Where a value inside a word starts: after `=` (`x=reboot`, `BASH_CMDS[ls]=…`), a `,` (a list an
 * `IFS=,` splits) or the word of `${x:-word}` / `:=` / `:+` / `:?`.
 */
const VALUE_START = /=|,|:[-=+?]/;

/** The hard findings of the words of `text` read as above; empty when no hard program is named. */
export function hiddenHardFindings(text: string, where: string): GuardFinding[] {
  if (!MAYBE_HARD.test(text)) return [];
  const out: GuardFinding[] = [];
  const seen = new Set<string>();
  const add = (finding: GuardFinding, shown: string) => {
    if (finding.verdict !== "deny" || seen.has(finding.rule)) return;
    seen.add(finding.rule);
    out.push(
      hardFinding(
        finding.rule as HardRule,
        `${where}; read as plain words it may run \`${shown}\`: ${finding.reason}`,
      ),
    );
  };
  for (const segment of text.split(SEPARATORS)) {
    const words = segment
      .replace(DROPPED, " ")
      .split(/\s+/)
      .filter((w) => w !== "");
    for (let k = 0; k < words.length; k++) {
      const word = words[k] as string;
      // `>/dev/sda`, `> /dev/sda`: a redirection hidden at the limit.
      if (/^\d*(>|>>|&>|>\|)/.test(word)) {
        const target = word.replace(/^\d*(&>>?|>>?\|?)/, "") || words[k + 1];
        if (target !== undefined) {
          const cmd = sourceOf([], [{ op: ">", fd: undefined, target: [literalField(target)], inner: [] }]);
          for (const f of hardRedirectFindings(cmd)) add(f, `> ${target}`);
        }
        continue;
      }
      // `x=reboot`, `BASH_CMDS[ls]=/sbin/reboot`, `${c:-reboot}`, `c=ls,reboot`: a value may be run
      // later, also in another case (`${c,,}`).
      const named = [word, ...word.split(VALUE_START)]
        .map((w) => w.toLowerCase())
        .find((w) => w !== "" && HARD_PROGRAMS.test(programName(literalField(w))));
      if (named === undefined) continue;
      const nameField = literalField(named);
      const name = programName(nameField);
      const args = words.slice(k + 1, k + 1 + MAX_WORDS).map(literalField);
      const inv: Invocation = {
        name,
        nameField,
        args,
        implicitOperands: [],
        via: [],
        source: sourceOf([nameField, ...args]),
      };
      const shown = [named, ...args.map((a) => a.text)].join(" ");
      for (const f of hardInvocationFindings(inv)) add(f, shown);
    }
  }
  return out;
}

/**
 * The findings for a limit reached or a construct the guard does not follow: too complex (ask),
 * plus {@link hiddenHardFindings} of the text it could not judge.
 */
export function tooComplexFindings(reason: string, rest: string): GuardFinding[] {
  return [softFinding("soft.too-complex", reason), ...hiddenHardFindings(rest, reason)];
}
