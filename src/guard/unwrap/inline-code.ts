import type { Field } from "../shell/index.js";
import type { Invocation } from "./unwrap.js";

/**
 * Finds an interpreter's inline-code option however the options before it are spelt:
 * `python3 -W x -c`, `python3 -Wx -Ic`, `perl -I lib -e`, `perl -Mstrict -lne`,
 * `node --stack-size=N -e`, `node -r x --eval`, `php -d x=y -r`, `ruby -w -I lib -e`,
 * `bash -o posix -c`, `bash --norc -c`. Each interpreter's option letters that take a value are
 * listed, so a value is never read as the script; a word that does not look like a script file
 * does not end the scan either (an option unknown to the table may have taken it).
 */

interface Interp {
  names: RegExp;
  /** Whole words that mean inline code. */
  codeWords: RegExp;
  /** Letters of a short cluster that mean inline code. */
  codeLetters: string;
  /** Letters whose value is the rest of the cluster, or the next word when nothing follows. */
  valueLetters: string;
  /** Letters whose optional value is the rest of the cluster (never the next word). */
  attachedLetters?: string;
  /** Letters followed by optional digits, after which the cluster goes on (`perl -l0ne`). */
  digitLetters?: string;
  /** Long options that take the next word as their value. */
  valueWords: RegExp;
  /** Letters / words after which no more interpreter options follow (`python -m mod`). */
  stopLetters?: string;
}

const INTERPRETERS: Interp[] = [
  {
    names: /^(python[\d.]*|pypy[\d.]*)$/,
    codeWords: /^--command$/,
    codeLetters: "c",
    valueLetters: "WXQ",
    valueWords: /^--check-hash-based-pycs$/,
    stopLetters: "m",
  },
  {
    names: /^(node|nodejs|bun)$/,
    codeWords: /^(--eval|--print)(=|$)|^(--import|--require|--loader|--experimental-loader)=?data:/,
    codeLetters: "ep",
    valueLetters: "rC",
    valueWords:
      /^--(require|import|loader|experimental-loader|input-type|title|env-file|inspect-port|conditions|disable-warning|watch-path|redirect-warnings|report-dir|diagnostic-dir|cpu-prof-dir|heap-prof-dir|icu-data-dir|openssl-config|stack-size|max-old-space-size)$/,
  },
  {
    names: /^perl[\d.]*$/,
    codeWords: /^$/,
    codeLetters: "eE",
    valueLetters: "IMm",
    attachedLetters: "ixdDFV",
    digitLetters: "0lC",
    valueWords: /^$/,
  },
  {
    names: /^(ruby[\d.]*|jruby|truffleruby)$/,
    codeWords: /^$/,
    codeLetters: "e",
    valueLetters: "IrCE",
    attachedLetters: "FxKT",
    digitLetters: "0W",
    valueWords: /^--(encoding|external-encoding|internal-encoding|enable|disable|jit-.*)$/,
  },
  {
    names: /^php[\d.]*$/,
    codeWords: /^--(run|process-begin|process-code|process-end)(=|$)/,
    codeLetters: "rBRE",
    valueLetters: "dcfztFS",
    valueWords: /^--(define|php-ini|file|zend-extension|docroot|process-file|rf|rc|re|rz|ri)$/,
  },
  {
    names: /^expect$/,
    codeWords: /^$/,
    codeLetters: "c",
    valueLetters: "bDf",
    valueWords: /^$/,
  },
  {
    names: /^(emacs|xemacs|emacsclient)$/,
    codeWords: /^--?(eval|execute)(=|$)/,
    codeLetters: "",
    valueLetters: "lfLdtsa",
    valueWords: /^--(load|funcall|directory|terminal|socket-name|alternate-editor|file|insert|visit)$/,
  },
  {
    names: /^(lua[\d.]*|luajit|osascript|rscript|tclsh[\d.]*|wish)$/,
    codeWords: /^(--expr|--eval)(=|$)/,
    codeLetters: "e",
    valueLetters: "lI",
    valueWords: /^$/,
  },
];

const SHELL_VALUE_WORDS = /^([-+]o|[-+]O|--rcfile|--init-file)$/;

/** True when `text` looks like a script file or a path (ends the scan for options). */
function isScriptLike(text: string): boolean {
  return text === "-" || text.includes("/") || /\.[A-Za-z0-9]{1,5}$/.test(text);
}

/** The word of a shell's argv that makes it run an inline script (`-c`, `-ec`), if any. */
export function shellInlineFlag(args: readonly Field[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as Field).text;
    if (t === "--" || t === "-" || !/^[-+]/.test(t)) return undefined;
    if (SHELL_VALUE_WORDS.test(t)) {
      i++;
      continue;
    }
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(t)) return t;
  }
  return undefined;
}

/** The word of an interpreter's argv that makes it run inline code, if any. */
export function interpreterInlineFlag(inv: Invocation): string | undefined {
  const spec = INTERPRETERS.find((s) => s.names.test(inv.name));
  if (!spec) return undefined;
  const args = inv.args;
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as Field).text;
    if (t === "--") return undefined;
    if (spec.codeWords.test(t)) return t;
    if (t.startsWith("--")) {
      if (!t.includes("=") && spec.valueWords.test(t)) {
        // `node --import 'data:text/javascript,…'` runs the data URL as a module.
        if (/^data:/i.test(args[i + 1]?.text ?? "")) return `${t} ${args[i + 1]?.text}`;
        i++;
      }
      continue;
    }
    if (t.startsWith("-") && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const ch = t[j] as string;
        if (spec.codeLetters.includes(ch)) return t;
        if (spec.stopLetters?.includes(ch)) return undefined;
        if (spec.attachedLetters?.includes(ch)) break;
        if (spec.digitLetters?.includes(ch)) {
          while (
            j + 1 < t.length &&
            /[0-9a-fA-FxX]/.test(t[j + 1] as string) &&
            !spec.codeLetters.includes(t[j + 1] as string)
          )
            j++;
          continue;
        }
        if (spec.valueLetters.includes(ch)) {
          if (j === t.length - 1) i++;
          break;
        }
      }
      continue;
    }
    if (isScriptLike(t)) return undefined;
  }
  return undefined;
}
