import { normaliseTarget } from "../paths/index.js";
import type { Field, SimpleCommand } from "../shell/index.js";
import {
  gitCommandLine,
  type Invocation,
  optionSpec,
  programName,
  readOptions,
  skipOptions,
  unwrapCommand,
} from "../unwrap/index.js";

/**
 * The hosts an exec'd network program connects to: URL operands of curl / wget / httpie / aria2c
 * (and curl's `--url`, `--proxy`, `--connect-to`, `--resolve` addresses, `--unix-socket`), host
 * operands of nc / ncat / netcat / telnet / ftp / tftp, socat addresses, ssh / sftp hosts and jump
 * hosts, `host:path` operands of scp and rsync, and the URLs git clones, fetches, pulls, pushes,
 * lists or adds as a remote. A host spelt with an expansion is `dynamic`: known only at run time.
 */

/** One place a command connects to. */
export interface NetworkTarget {
  /** The program that connects. */
  program: string;
  /** The host as written (brackets of an IPv6 literal removed), or the whole word when dynamic. */
  host: string;
  /** True when the host is not known before the command runs (`$URL`, `$(cat host)`). */
  dynamic: boolean;
  /**
   * True for a one-word host of an SSH-based program (`ssh prod`, `rsync a host:b`): usually a
   * `Host` alias of the SSH configuration, which names the real host; DNS cannot judge it.
   */
  sshAlias: boolean;
}

const SSH_PROGRAMS = new Set(["ssh", "sftp", "scp", "rsync", "mosh", "git"]);

const URL_HOST = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^/:?#]*)/i;

function hostOfUrl(text: string, schemeOptional: boolean): string | undefined {
  const m = URL_HOST.exec(text);
  if (m) return m[2];
  if (!schemeOptional || text.startsWith("-") || text.startsWith("/") || text.startsWith("."))
    return undefined;
  // curl and wget take `host`, `host:port/path` and `user@host/path` without a scheme.
  const bare = /^(?:[^@/?#]*@)?(\[[^\]]*\]|[^/:?#]*)/.exec(text);
  return bare?.[1] || undefined;
}

/** `[user@]host:path` (scp, rsync, git), `host::module` (rsync); never a local path. */
function hostOfRemotePath(text: string): string | undefined {
  if (/^[./~]/.test(text)) return undefined;
  const url = URL_HOST.exec(text);
  if (url) return url[2];
  const m = /^(?:[^@/:]*@)?(\[[^\]]*\]|[^/:]+):/.exec(text);
  return m?.[1];
}

function target(program: string, host: string, field: Field): NetworkTarget {
  const dynamic = /[$`*?{}]/.test(host) || (field.dynamic && host === "");
  const clean = host.replace(/^\[|\]$/g, "").toLowerCase();
  const sshAlias = SSH_PROGRAMS.has(program) && /^[a-z0-9_-]+$/i.test(clean) && !/^\d+$/.test(clean);
  return { program, host: clean, dynamic, sshAlias };
}

function fromUrls(inv: Invocation, words: readonly Field[], schemeOptional: boolean): NetworkTarget[] {
  const out: NetworkTarget[] = [];
  for (const w of words) {
    if (w.dynamic && /^\$/.test(w.text)) {
      out.push({ program: inv.name, host: w.text, dynamic: true, sshAlias: false });
      continue;
    }
    const host = hostOfUrl(w.text, schemeOptional);
    if (host !== undefined && host !== "") out.push(target(inv.name, host, w));
  }
  return out;
}

function curlTargets(inv: Invocation): NetworkTarget[] {
  const spec = optionSpec("curl");
  if (!spec) return [];
  const read = readOptions(inv.args, spec);
  const words = [...read.operands];
  const out: NetworkTarget[] = [];
  for (const o of read.options) {
    if (!o.value) continue;
    if (o.name === "--url" || o.name === "--proxy" || o.name === "--preproxy") words.push(o.value);
    // `--resolve name:port:addr` and `--connect-to h:p:host:port` choose the address connected to.
    if (o.name === "--resolve" || o.name === "--connect-to") {
      const parts = o.value.text.split(":");
      const addr = o.name === "--resolve" ? parts.slice(2).join(":") : (parts[2] ?? "");
      for (const a of addr.split(",")) if (a !== "") out.push(target("curl", a, o.value));
    }
    if (o.name === "--unix-socket" || o.name === "--abstract-unix-socket")
      out.push(target("curl", "localhost", o.value));
  }
  return [...out, ...fromUrls(inv, words, true)];
}

function netcatTargets(inv: Invocation): NetworkTarget[] {
  if (inv.args.some((a) => /^-[a-zA-Z]*l/.test(a.text) || a.text === "--listen")) return [];
  const i = skipOptions(inv.args, 0, {
    short: "pswxXiqOTIcegGmMo",
    long: [
      "proxy",
      "source",
      "wait",
      "exec",
      "sh-exec",
      "lua-exec",
      "proxy-type",
      "proxy-auth",
      "output",
      "hex-dump",
      "idle-timeout",
      "send-only",
    ],
  });
  const host = inv.args.slice(i).find((a) => !a.text.startsWith("-"));
  return host ? [target(inv.name, host.text, host)] : [];
}

function socatTargets(inv: Invocation): NetworkTarget[] {
  const out: NetworkTarget[] = [];
  for (const a of inv.args) {
    const m =
      /^(tcp[46]?|udp[46]?|tcp-connect|udp-connect|tcp4-connect|tcp6-connect|ssl|openssl|openssl-connect|dccp-connect|sctp-connect|socks4a?|socks5|proxy|proxy-connect):(.*)$/i.exec(
        a.text,
      );
    if (m) {
      const rest = (m[2] ?? "").split(",")[0] ?? "";
      // SOCKS and PROXY addresses name the proxy first, then the destination.
      const hosts = /^(socks|proxy)/i.test(m[1] ?? "")
        ? [rest.split(":")[0], rest.split(":")[1]]
        : [rest.replace(/:[^:\]]*$/, "")];
      for (const h of hosts) if (h) out.push(target("socat", h, a));
    } else if (/^(unix-connect|unix-client|abstract-connect):/i.test(a.text))
      out.push(target("socat", "localhost", a));
  }
  return out;
}

function sshTargets(inv: Invocation): NetworkTarget[] {
  const out: NetworkTarget[] = [];
  const i = skipOptions(inv.args, 0, { short: "BbcDEeFIiJLlmOoPpQRSWw" });
  for (let k = 0; k < i; k++) {
    const t = (inv.args[k] as Field).text;
    const attached = /^-[Jo](.+)$/.exec(t);
    if (t === "-J" || t === "-o" || attached) {
      const v = attached ? { ...(inv.args[k] as Field), text: attached[1] as string } : inv.args[k + 1];
      const jump = v && (t.startsWith("-J") ? v.text : /^(ProxyJump|HostName)[= ](.*)$/i.exec(v.text)?.[2]);
      if (v && jump)
        for (const j of jump.split(","))
          out.push(target(inv.name, j.replace(/^.*@/, "").replace(/:\d+$/, ""), v));
    }
  }
  const dest = inv.args[i];
  if (dest) {
    const url = URL_HOST.exec(dest.text);
    out.push(target(inv.name, url ? (url[2] ?? "") : dest.text.replace(/^.*@/, ""), dest));
  }
  return out;
}

const GIT_NET_SUBCOMMANDS = new Set([
  "clone",
  "fetch",
  "pull",
  "push",
  "ls-remote",
  "archive",
  "submodule",
  "remote",
]);

function gitTargets(inv: Invocation): NetworkTarget[] {
  const line = gitCommandLine(inv.args);
  if (!line.subcommand || !GIT_NET_SUBCOMMANDS.has(line.subcommand)) return [];
  const out: NetworkTarget[] = [];
  for (const a of line.args) {
    const text = a.text.startsWith("--remote=") ? a.text.slice(9) : a.text;
    const host = hostOfRemotePath(text);
    if (host) out.push(target("git", host, a));
  }
  return out;
}

const NETWORK_PROGRAMS = new Set([
  "curl",
  "wget",
  "aria2c",
  "lwp-request",
  "lwp-download",
  "http",
  "https",
  "xh",
  "xhs",
  "nc",
  "ncat",
  "netcat",
  "telnet",
  "ftp",
  "tftp",
  "socat",
  "ssh",
  "sftp",
  "mosh",
  "scp",
  "rsync",
]);

/** Hosts one invocation connects to. */
export function invocationTargets(inv: Invocation): NetworkTarget[] {
  const listed = listedTargets(inv);
  // `xargs curl < urls`, `find -exec curl {}`: operands read at run time may be hosts too.
  if ((inv.via.includes("xargs") || inv.via.includes("find")) && NETWORK_PROGRAMS.has(inv.name))
    listed.push({ program: inv.name, host: "(operands read at run time)", dynamic: true, sshAlias: false });
  return listed;
}

/** `wget -i urls.txt`, `curl -K config`, `aria2c -i list`: targets read from a file at run time. */
function fromFiles(inv: Invocation): NetworkTarget[] {
  const fileOption = /^(-i|--input-file|-K|--config)(=|$)|^-[iK]./;
  if (!/^(wget|curl|aria2c)$/.test(inv.name) || !inv.args.some((a) => fileOption.test(a.text))) return [];
  return [{ program: inv.name, host: "(hosts read from a file)", dynamic: true, sshAlias: false }];
}

function listedTargets(inv: Invocation): NetworkTarget[] {
  const fromFile = fromFiles(inv);
  if (fromFile.length > 0) return [...fromFile, ...knownTargets(inv)];
  return knownTargets(inv);
}

/** lwp-request's aliases (`GET`, `HEAD`, `POST`): their own names, not coreutils' `head`. */
const LWP_ALIAS = /^(GET|HEAD|POST|PUT|DELETE|OPTIONS|TRACE)$/;

function knownTargets(inv: Invocation): NetworkTarget[] {
  const written = inv.nameField.text.slice(inv.nameField.text.lastIndexOf("/") + 1);
  if (LWP_ALIAS.test(written) && inv.name !== "lwp-request")
    return knownTargets({ ...inv, name: "lwp-request" });
  switch (inv.name) {
    case "curl":
      return curlTargets(inv);
    case "wget":
    case "aria2c":
    case "lwp-request":
    case "lwp-download": {
      const spec = optionSpec(inv.name);
      const ops = spec
        ? readOptions(inv.args, spec).operands
        : inv.args.filter((a) => !a.text.startsWith("-"));
      return fromUrls(inv, ops, true);
    }
    case "http":
    case "https":
    case "xh":
    case "xhs": {
      // httpie: an optional METHOD, then the URL, then request items.
      const ops = inv.args.filter((a) => !a.text.startsWith("-"));
      const url = /^[A-Z]+$/.test(ops[0]?.text ?? "") ? ops[1] : ops[0];
      return url ? fromUrls(inv, [url], true) : [];
    }
    case "nc":
    case "ncat":
    case "netcat":
    case "telnet":
    case "ftp":
    case "tftp":
      return netcatTargets(inv);
    case "socat":
      return socatTargets(inv);
    case "ssh":
    case "sftp":
    case "mosh":
      return sshTargets(inv);
    case "scp":
    case "rsync":
      return inv.args.flatMap((a) => {
        const h = hostOfRemotePath(a.text);
        return h ? [target(inv.name, h, a)] : [];
      });
    case "git":
      return gitTargets(inv);
    default:
      return [];
  }
}

const DEV_NET = /^\/dev\/(tcp|udp)\/([^/]+)\/[^/]+$/i;

/** Hosts a command's redirections connect to (`/dev/tcp/HOST/PORT`). */
export function redirectTargets(cmd: SimpleCommand): NetworkTarget[] {
  const out: NetworkTarget[] = [];
  const program = cmd.argv[0] ? programName(cmd.argv[0]) : "bash";
  for (const r of cmd.redirects) {
    for (const t of r.target) {
      const m = DEV_NET.exec(normaliseTarget(t, undefined));
      if (!m) continue;
      const host = (m[2] as string).toLowerCase();
      out.push({ program: `${program} (/dev/${m[1]})`, host, dynamic: /[$`*?]/.test(host), sshAlias: false });
    }
  }
  return out;
}

/** Every host the simple commands connect to, through whatever wrappers they use. */
export function commandNetworkTargets(commands: readonly SimpleCommand[]): NetworkTarget[] {
  const out: NetworkTarget[] = [];
  for (const cmd of commands) {
    for (const inv of unwrapCommand(cmd).invocations) out.push(...invocationTargets(inv));
    out.push(...redirectTargets(cmd));
  }
  return out;
}
