import { inspectHost } from "../network/index.js";
import type { Assignment, Field } from "../shell/index.js";
import type { Invocation } from "../unwrap/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";
import { NAMING_PROGRAMS } from "./indirect-families.js";

/**
 * A client aimed at a loopback or private address, whatever its name: an argument (or an
 * environment value) that is an internal address, a `host:port` or an `a:host:b` forward naming
 * one, or a URL of any scheme whose host is one (`redis-cli -h 127.0.0.1`, `psql -h 127.0.0.1`,
 * `mongosh mongodb://127.0.0.1`, `wget -e http_proxy=http://10.0.0.1:3128`, `ALL_PROXY=socks5://…`)
 * asks, as the named network clients do (`soft.network-internal`); so does `ssh -R`, which opens a
 * way from the remote host into this one. Programs that only name their arguments (`echo`,
 * `grep 127.0.0.1 /etc/hosts`) are left alone.
 */

/** A quick test before any parsing: could the word name an internal host at all? */
const MAYBE_HOST = /\d+\.\d+\.\d+\.\d+|localhost|::|\[[0-9a-f:.]+\]|0x[0-9a-f]+|metadata|\.internal\b/i;
const URL_AUTHORITY = /[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#\s]*@)?(\[[^\]]*\]|[^:/?#\s,;]*)/gi;
const HOST_WORD =
  /^(?:\d+\.\d+\.\d+\.\d+|\[[0-9a-f:.]+\]|[0-9a-f]*::[0-9a-f:.]*|localhost|[a-z0-9-]+\.localhost|0x[0-9a-f]+(?:\.[0-9a-fx]+)*|metadata(?:\.google\.internal)?|host\.docker\.internal)$/i;
/** Where a server listens, not a host a client reaches (`--host 0.0.0.0`, `[::]:8080`). */
const UNSPECIFIED = /^(0\.0\.0\.0|::|\[::\])$/;

/** The internal hosts a word names, each with the verdict's reason. */
function internalHosts(text: string): Array<{ host: string; reason: string }> {
  if (!MAYBE_HOST.test(text)) return [];
  const hosts = new Set<string>();
  for (const m of text.matchAll(URL_AUTHORITY)) if (m[1]) hosts.add(m[1]);
  // `-h127.0.0.1`, `--host=127.0.0.1`, `user@10.0.0.1`, `8080:localhost:80`, `10.0.0.1:6379`,
  // and lists of them (`host=127.0.0.1 dbname=x`, `a,b`).
  for (const token of text.split(/[\s,;]+/)) {
    const value = token
      .replace(/^-[A-Za-z](?=\d)/, "")
      .replace(/^[^=]*=/, "")
      .replace(/^[^@]*@/, "");
    const pieces = value.startsWith("[") ? [value.replace(/\]:\d+$/, "]")] : value.split(/[:/]/);
    if (HOST_WORD.test(value)) hosts.add(value);
    for (const piece of pieces) if (HOST_WORD.test(piece)) hosts.add(piece);
  }
  const out: Array<{ host: string; reason: string }> = [];
  for (const host of hosts) {
    if (UNSPECIFIED.test(host)) continue;
    const inspected = inspectHost(host);
    if (
      inspected.kind === "final" &&
      inspected.verdict.verdict !== "allow" &&
      inspected.verdict.rule !== "url.invalid"
    )
      out.push({ host, reason: inspected.verdict.reason });
  }
  return out;
}

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

/** Internal-address findings for one invocation's arguments (and `ssh -R`). */
export function internalAddressFindings(inv: Invocation): GuardFinding[] {
  const out: GuardFinding[] = [];
  if (/^(ssh|autossh)$/.test(inv.name)) {
    const forward = inv.args.find((a) => /^-[A-Za-z]*R/.test(a.text) || /^RemoteForward\b/i.test(a.text));
    if (forward)
      out.push(
        softFinding(
          "soft.network-internal",
          `${describe(inv)} ${forward.text} forwards a port of the remote host into this machine`,
        ),
      );
  }
  if (NAMING_PROGRAMS.has(inv.name)) return out;
  for (const a of inv.args as Field[]) {
    const found = internalHosts(a.text)[0];
    if (found) {
      out.push(
        softFinding(
          "soft.network-internal",
          `${describe(inv)} is given ${a.text}, an internal address: ${found.reason}`,
        ),
      );
      break;
    }
  }
  return out;
}

/** The same for environment values (`ALL_PROXY=socks5://127.0.0.1:9050 curl …`). */
export function internalAddressAssignments(assignments: readonly Assignment[]): GuardFinding[] {
  for (const { name, value } of assignments) {
    const found = internalHosts(value.text)[0];
    if (found)
      return [
        softFinding(
          "soft.network-internal",
          `${name}=${value.text} points the program at an internal address: ${found.reason}`,
        ),
      ];
  }
  return [];
}
