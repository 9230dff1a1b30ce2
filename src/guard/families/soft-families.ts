import { isCredentialFile, isPrivateKey, isSystemPath, normaliseTarget } from "../paths/index.js";
import type { Field, SimpleCommand } from "../shell/index.js";
import {
  type Invocation,
  parseArgs,
  pathCandidates,
  programName,
  TEXT_ONLY_PROGRAMS,
} from "../unwrap/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";
import { familyFindings, familyRedirectFindings } from "./family-registry.js";
import { isWriteRedirect } from "./hard-families.js";

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

function operands(args: readonly Field[]): Field[] {
  return args.filter((a) => !a.text.startsWith("-") || a.text === "-");
}

/** Findings for a file mode as chmod, install -m and mkdir -m read it (`06755`, `u+s,o+w`). */
export function modeFindings(mode: string, who: string): GuardFinding[] {
  const out: GuardFinding[] = [];
  // chmod reads any number of leading zeros: 06755 and 00777 are 6755 and 0777.
  const octal = /^0*([0-7]{1,4})$/.exec(mode);
  if (octal) {
    const digits = (octal[1] as string).padStart(4, "0");
    if (Number(digits[3]) & 2)
      out.push(softFinding("soft.world-writable", `${who} ${mode} lets every user write the files`));
    if (Number(digits[0]) & 6)
      out.push(softFinding("soft.setuid", `${who} ${mode} sets the set-user-id or set-group-id bit`));
    return out;
  }
  for (const clause of mode.split(",")) {
    const m = /^([ugoa]*)((?:[-+=][rwxXstugo]*)+)$/.exec(clause);
    if (!m) continue;
    const whom = m[1] ?? "";
    for (const op of (m[2] ?? "").match(/[-+=][rwxXstugo]*/g) ?? []) {
      if (op[0] === "-") continue;
      if (op.includes("w") && (whom.includes("a") || whom.includes("o"))) {
        out.push(softFinding("soft.world-writable", `${who} ${mode} lets every user write the files`));
      }
      if (op.includes("s") && (whom === "" || /[uga]/.test(whom))) {
        out.push(softFinding("soft.setuid", `${who} ${mode} sets the set-user-id or set-group-id bit`));
      }
    }
  }
  return out;
}

const MODE_PROGRAMS = /^(install|mkdir|mkfifo|mknod)$/;

function chmodFindings(inv: Invocation): GuardFinding[] {
  if (MODE_PROGRAMS.test(inv.name)) {
    // `install -m 4755`, `-m4755`, `--mode=4755`, `--mo 4755`.
    const out: GuardFinding[] = [];
    for (let i = 0; i < inv.args.length; i++) {
      const t = (inv.args[i] as Field).text;
      let mode: string | undefined;
      if (t === "-m" || /^--mo(d(e)?)?$/.test(t)) mode = inv.args[i + 1]?.text;
      else if (/^--mo(d(e)?)?=/.test(t)) mode = t.slice(t.indexOf("=") + 1);
      else if (/^-[A-Za-z]*m./.test(t) && !t.startsWith("--")) mode = t.slice(t.indexOf("m") + 1);
      if (mode !== undefined) out.push(...modeFindings(mode, `${describe(inv)} -m`));
    }
    return out;
  }
  if (inv.name !== "chmod") return [];
  const mode = operands(inv.args)[0]?.text;
  if (mode === undefined) return [];
  return modeFindings(mode, "chmod");
}

function chownFindings(inv: Invocation): GuardFinding[] {
  if (inv.name !== "chown" && inv.name !== "chgrp") return [];
  const parsed = parseArgs(
    inv.args,
    ["recursive", "reference", "from", "dereference", "no-dereference"],
    "",
    ["reference", "from"],
  );
  if (!parsed.short.has("R") && !parsed.long.has("recursive")) return [];
  for (const f of parsed.operands.slice(1)) {
    const path = normaliseTarget(f, inv.source.cwd);
    if (isSystemPath(path))
      return [
        softFinding("soft.chown-system", `${describe(inv)} -R changes the owner of the system path ${path}`),
      ];
  }
  return [];
}

const SLEEP_VERBS =
  /^(suspend|hibernate|hybrid-sleep|suspend-then-hibernate|sleep\.target|suspend\.target|hibernate\.target)$/;
const SERVICE_VERBS =
  /^(stop|restart|disable|mask|kill|isolate|try-restart|reload-or-restart|try-reload-or-restart|daemon-reexec|unload|bootout|remove)$/;

function serviceFindings(inv: Invocation): GuardFinding[] {
  if (inv.name === "systemctl" || inv.name === "loginctl" || inv.name === "pmset") {
    const sleep = operands(inv.args).find(
      (a) => SLEEP_VERBS.test(a.text) || (inv.name === "pmset" && a.text === "sleepnow"),
    );
    if (sleep)
      return [
        softFinding("soft.service-control", `${describe(inv)} ${sleep.text} puts the machine to sleep`),
      ];
  }
  if (inv.name === "systemctl" || inv.name === "launchctl") {
    const verb = operands(inv.args).find((a) => SERVICE_VERBS.test(a.text));
    if (verb)
      return [
        softFinding(
          "soft.service-control",
          `${describe(inv)} ${verb.text} stops or restarts a system service`,
        ),
      ];
  }
  if (inv.name === "service" || inv.name === "rc-service") {
    const verb = operands(inv.args)[1];
    if (verb && SERVICE_VERBS.test(verb.text))
      return [
        softFinding(
          "soft.service-control",
          `${describe(inv)} ${operands(inv.args)[0]?.text} ${verb.text} stops or restarts a system service`,
        ),
      ];
  }
  return [];
}

const CREDENTIAL_WRITERS = /^(cp|mv|install|ln|rsync|scp)$/;

function credentialWriteFindings(inv: Invocation): GuardFinding[] {
  const cwd = inv.source.cwd;
  let dests: Field[] = [];
  if (inv.name === "tee") dests = operands(inv.args);
  else if (CREDENTIAL_WRITERS.test(inv.name)) dests = operands(inv.args).slice(-1);
  else if (inv.name === "dd")
    dests = inv.args.filter((a) => a.text.startsWith("of=")).map((a) => ({ ...a, text: a.text.slice(3) }));
  else if (
    /^(sed|gsed|perl)$/.test(inv.name) &&
    inv.args.some((a) => /^(-[a-zA-Z]*i|--in-place)/.test(a.text))
  ) {
    dests = operands(inv.args).slice(inv.name === "sed" || inv.name === "gsed" ? 1 : 0);
  } else if (inv.name === "truncate" || inv.name === "touch") {
    dests = operands(inv.args);
  }
  for (const d of dests) {
    const path = normaliseTarget(d, cwd);
    if (isCredentialFile(path) || /(^|\/)\.ssh$/.test(path)) {
      return [softFinding("soft.credential-write", `${describe(inv)} writes the credential file ${path}`)];
    }
    if (/^\/(etc\/cron|var\/spool\/cron)/.test(path))
      return [softFinding("soft.crontab", `${describe(inv)} writes ${path}, a cron table`)];
  }
  return [];
}

const KEY_READ_EXEMPT = new Set([
  "ssh",
  "ssh-add",
  "ssh-keygen",
  "ssh-copy-id",
  "chmod",
  "chown",
  "chgrp",
  "ls",
  "stat",
  "rm",
  "touch",
  "mkdir",
  "file",
  "git",
]);

const SECRET_STORE =
  /(^|\/)(\.aws\/credentials|\.netrc|_netrc|\.pgpass|\.git-credentials|\.docker\/config\.json|\.kube\/config|\.config\/gh\/hosts\.yml|\.gnupg\/.+)$/i;

function privateKeyFindings(inv: Invocation): GuardFinding[] {
  if (TEXT_ONLY_PROGRAMS.has(inv.name) || KEY_READ_EXEMPT.has(inv.name)) return [];
  for (const f of pathCandidates(inv)) {
    const path = normaliseTarget(f, inv.source.cwd);
    if (isPrivateKey(path, f.glob)) {
      return [
        softFinding(
          "soft.private-key-read",
          `${describe(inv)} reads ${path}, which looks like a private key`,
        ),
      ];
    }
    if (SECRET_STORE.test(path)) {
      return [softFinding("soft.private-key-read", `${describe(inv)} reads ${path}, a store of credentials`)];
    }
  }
  return [];
}

const SQL_CLIENTS =
  /^(psql|mysql|mariadb|sqlite3?|sqlcmd|clickhouse-client|clickhouse|cockroach|duckdb|pgcli|mycli|litecli|usql|trino|snowsql|bq)$/;

/** True when SQL text holds DROP, TRUNCATE, or a DELETE / UPDATE without WHERE. */
export function isDestructiveSql(sql: string): string | undefined {
  // MySQL runs what is inside `/*! ... */` and `/*!50000 ... */`: those comments are code.
  const unhidden = sql.replace(/\/\*!\d*([\s\S]*?)\*\//g, " $1 ");
  for (const statement of unhidden.split(";")) {
    const s = statement.replace(/--[^\n]*|#[^\n]*/g, " ").replace(/\/\*[\s\S]*?\*\//g, " ");
    if (
      /\bdrop\s+(table|database|schema|view|index|user|role|function|procedure|trigger|materialized|extension|owned|sequence|type|column|if)\b/i.test(
        s,
      )
    )
      return "DROP";
    if (/\btruncate\b/i.test(s)) return "TRUNCATE";
    // A statement built from strings at run time hides its keywords from any match.
    if (
      /\bprepare\s+\w+\s+from\b|\bexecute\s+immediate\b|\bsp_executesql\b|\bexec(ute)?\s*\(|\bexecute\s+format\s*\(/i.test(
        s,
      )
    )
      return "dynamic SQL built at run time";
    if (/\bdelete\b[\s\S]*?\bfrom\b/i.test(s) && !hasRealWhere(s)) return "DELETE without a real WHERE";
    if (/\bupdate\s+\S+[\s\S]*?\bset\b/i.test(s) && !hasRealWhere(s)) return "UPDATE without a real WHERE";
  }
  return undefined;
}

const TAUTOLOGY =
  /^\s*\(?\s*(true|1|not\s+(false|0)|(\d+)\s*(=|<=|>=)\s*\3|'([^']*)'\s*=\s*'\5'|"([^"]*)"\s*=\s*"\6"|([\w.]+)\s*=\s*\7|\d+\s*(<>|!=)\s*\d+|[\w.]+\s+is\s+not\s+null|\d*[1-9]\d*|1\s+is\s+not\s+null)\s*\)?\s*($|\blimit\b|\border\b|\breturning\b|\bor\b)/i;
const OR_TAUTOLOGY = /\bor\s+\(?\s*(true|1\b|(\d+)\s*=\s*\2\b|'([^']*)'\s*=\s*'\3'|not\s+false)/i;

/** True when a statement has a WHERE that limits rows (`WHERE true`, `WHERE 1=1`, `OR 1=1` do not). */
function hasRealWhere(statement: string): boolean {
  const m = /\bwhere\b([\s\S]*)$/i.exec(statement);
  if (!m) return false;
  const cond = m[1] ?? "";
  if (/^\s*\(?\s*(null\s+is\s+null|'[^']*'\s+like\s+'%+')/i.test(cond)) return false;
  // `WHERE 2>1`: a comparison of two numbers is decided before any row is read.
  const cmp =
    /^\s*\(?\s*(-?\d+(?:\.\d+)?)\s*(<=|>=|<>|!=|=|<|>)\s*(-?\d+(?:\.\d+)?)\s*\)?\s*($|\b(limit|order|returning|or|and)\b)/i.exec(
      cond,
    );
  if (cmp) {
    const [a, b] = [Number(cmp[1]), Number(cmp[3])];
    const truth = {
      "<=": a <= b,
      ">=": a >= b,
      "<>": a !== b,
      "!=": a !== b,
      "=": a === b,
      "<": a < b,
      ">": a > b,
    }[cmp[2] as "="];
    if (truth) return false;
  }
  return !TAUTOLOGY.test(cond) && !OR_TAUTOLOGY.test(cond);
}

function sqlFindings(inv: Invocation): GuardFinding[] {
  if (!SQL_CLIENTS.test(inv.name)) return [];
  // `--command=DROP ...`: the option name must not read as an SQL `--` comment.
  const texts = [...inv.args.map((a) => a.text.replace(/^--?[\w-]+=/, "")), ...inv.source.stdinText];
  for (const up of inv.source.upstream) {
    texts.push(...up.argv.slice(1).map((a) => a.text), ...up.stdinText);
  }
  for (const text of texts) {
    const kind = isDestructiveSql(text);
    if (kind) return [softFinding("soft.destructive-sql", `${describe(inv)} runs destructive SQL (${kind})`)];
  }
  return [];
}

/** `find … -exec rm {} \;`, `-execdir rm`, `-ok rm`: rm runs on every file the search matches. */
function findRemoveFindings(inv: Invocation): GuardFinding[] {
  if (!inv.via.includes("find") || !/^(rm|unlink|shred|rmdir|srm|trash|trash-put)$/.test(inv.name)) return [];
  return [
    softFinding(
      "soft.recursive-delete",
      `find runs ${inv.name} on every file it matches under ${inv.implicitOperands.map((o) => o.text).join(" ") || "."}`,
    ),
  ];
}

/** Process listings that can name any process (lsof -t, fuser name the users of one file or port). */
const PROCESS_LISTERS = /^(pgrep|pidof|ps|pstree|top|htop|procs)$/;

function killFindings(inv: Invocation): GuardFinding[] {
  if (/^(killall|killall5|pkill|skill|slay)$/.test(inv.name))
    return [softFinding("soft.kill-all", `${describe(inv)} kills processes by name or pattern`)];
  if (inv.name === "kill") {
    // `kill $(pgrep .)`, `ps -e | xargs kill`: targets taken from a process listing can be every
    // process, the runner's own included.
    const listing = [...inv.source.argInner.flat(), ...inv.source.upstream].find((c) =>
      c.argv[0] ? PROCESS_LISTERS.test(programName(c.argv[0])) : false,
    );
    if (listing)
      return [
        softFinding(
          "soft.kill-all",
          `kill signals the processes ${programName(listing.argv[0] as Field)} lists, which can be every process`,
        ),
      ];
    if (inv.args.some((a) => a.text === "-1" || a.text === "1"))
      return [
        softFinding(
          "soft.kill-all",
          `kill ${inv.args.map((a) => a.text).join(" ")} signals init or every process`,
        ),
      ];
  }
  return [];
}

function crontabFindings(inv: Invocation): GuardFinding[] {
  if (inv.name !== "crontab") return [];
  const ops = inv.args.filter((a) => a.text !== "-u" && !/^-u/.test(a.text));
  if (ops.length === 1 && ops[0]?.text === "-l") return [];
  return [
    softFinding(
      "soft.crontab",
      `${describe(inv)} ${inv.args.map((a) => a.text).join(" ")} edits a cron table`,
    ),
  ];
}

function computedFindings(inv: Invocation): GuardFinding[] {
  if (!inv.nameField.dynamic) return [];
  return [
    softFinding("soft.computed-command", `the command name ${inv.nameField.text} is computed at run time`),
  ];
}

/** Soft rules over one invocation. */
export function softInvocationFindings(inv: Invocation): GuardFinding[] {
  return [
    ...chmodFindings(inv),
    ...chownFindings(inv),
    ...serviceFindings(inv),
    ...credentialWriteFindings(inv),
    ...privateKeyFindings(inv),
    ...sqlFindings(inv),
    ...killFindings(inv),
    ...findRemoveFindings(inv),
    ...crontabFindings(inv),
    ...familyFindings(inv),
    ...computedFindings(inv),
  ];
}

/** Soft rules over a command's redirections: writes to credential files and cron tables, key reads. */
export function softRedirectFindings(cmd: SimpleCommand): GuardFinding[] {
  const out: GuardFinding[] = [...familyRedirectFindings(cmd)];
  for (const r of cmd.redirects) {
    for (const t of r.target) {
      const path = normaliseTarget(t, cmd.cwd);
      if (isWriteRedirect(r)) {
        if (isCredentialFile(path))
          out.push(
            softFinding(
              "soft.credential-write",
              `a redirection (${r.op}) writes the credential file ${path}`,
            ),
          );
        if (/^\/(etc\/cron|var\/spool\/cron)/.test(path))
          out.push(softFinding("soft.crontab", `a redirection writes ${path}, a cron table`));
      } else if (isPrivateKey(path, t.glob)) {
        out.push(
          softFinding("soft.private-key-read", `a redirection reads ${path}, which looks like a private key`),
        );
      }
    }
  }
  return out;
}
