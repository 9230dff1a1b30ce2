import ipaddr from "ipaddr.js";
import { z } from "zod";

/**
 * Where a webhook may point. The runner POSTs approval requests, notices and agent messages to
 * webhook URLs from its own host, so a URL at a loopback, link-local (cloud metadata), private or
 * otherwise non-public address reaches services that only trust the host itself. Such a URL, and
 * plain http for a webhook that carries approval links, is refused unless
 * `notifications.allow_internal_webhooks` lists it. Checked on the literal URL: a literal IP by
 * ipaddr.js ranges, the names `localhost`, `*.localhost` and `metadata.google.internal`; a DNS
 * name that resolves to a private address is not seen here (no lookups at config time).
 */

/** Host names that always name this host or a cloud metadata service. */
const INTERNAL_NAMES = ["localhost", "metadata.google.internal"] as const;

/** Metadata services at literal addresses, named in the message so the risk is plain. */
const METADATA_ADDRESSES = ["169.254.169.254", "fd00:ec2::254"] as const;

/** A host entry: a DNS name or an IP address (IPv6 in brackets or bare), optionally with :port. */
const HOST_ENTRY = /^(\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:]*:[0-9a-fA-F:.]+|[A-Za-z0-9._-]+)(:\d{1,5})?$/;

/**
 * One entry of `notifications.allow_internal_webhooks`: an exact webhook URL, or a host (name or
 * address, optionally `host:port`) whose webhooks are all allowed.
 */
export const InternalWebhookAllowEntry = z
  .string()
  .refine((entry) => (entry.includes("://") ? URL.canParse(entry) : HOST_ENTRY.test(entry)), {
    message:
      "must be an exact webhook URL (https://hooks.internal/approvals) or a host (hooks.internal, 10.0.0.5, [fd00::1], host:port)",
  });

const bareHost = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");

/** An allow entry as host and optional port (`[fd00::1]:8443`, `::1`, `hooks.internal:8080`). */
function parseHostEntry(entry: string): { host: string; port: string | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) return { host: bareHost(bracketed[1] ?? ""), port: bracketed[2] ?? null };
  if (ipaddr.isValid(entry)) return { host: bareHost(entry), port: null };
  const named = /^(.*?)(?::(\d{1,5}))?$/.exec(entry);
  return { host: bareHost(named?.[1] ?? entry), port: named?.[2] ?? null };
}

/** True when `allow` lists the exact URL or its host (`host`, or `host:port` for that port only). */
export function isAllowedWebhook(url: URL, allow: readonly string[]): boolean {
  const host = bareHost(url.hostname);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return allow.some((entry) => {
    if (entry.includes("://")) return URL.canParse(entry) && new URL(entry).href === url.href;
    const listed = parseHostEntry(entry);
    return listed.host === host && (listed.port === null || listed.port === port);
  });
}

/** Why `url` points inside (a sentence), or null when it is a public address or an ordinary name. */
export function internalAddressReason(url: URL): string | null {
  const host = bareHost(url.hostname);
  if (INTERNAL_NAMES.some((name) => host === name) || host.endsWith(".localhost"))
    return `its host ${host} is ${host === "metadata.google.internal" ? "a cloud metadata service" : "this machine (loopback)"}`;
  if (!ipaddr.isValid(host)) return null;
  const address = ipaddr.process(host);
  const text = address.toString();
  if (METADATA_ADDRESSES.some((m) => ipaddr.parse(m).toString() === text))
    return `its address ${text} is a cloud metadata service`;
  const range = address.range();
  return range === "unicast" ? null : `its address ${text} is not a public address (range ${range})`;
}

/** Options of {@link webhookTargetProblem}. */
export interface WebhookTargetOptions {
  /** The webhook carries approval links (a chat webhook of an approver): plain http is refused too. */
  carriesLinks: boolean;
  /** `notifications.allow_internal_webhooks`. */
  allow: readonly string[];
}

/**
 * What is wrong with a webhook URL, as a sentence that names the allow setting, or null. The URL
 * itself is not repeated (a chat webhook URL is a secret: its path is the credential).
 */
export function webhookTargetProblem(raw: string, options: WebhookTargetOptions): string | null {
  if (!URL.canParse(raw)) return "is not a URL (expected https://host/path)";
  const url = new URL(raw);
  if (isAllowedWebhook(url, options.allow)) return null;
  const internal = internalAddressReason(url);
  if (internal)
    return `points inside: ${internal}; allowed: a public host, or list the exact URL or the host in notifications.allow_internal_webhooks`;
  if (options.carriesLinks && url.protocol === "http:")
    return `uses plain http to ${bareHost(url.hostname)}, but it carries approval links (anyone on the path could read and use them); allowed: https, or list the host in notifications.allow_internal_webhooks`;
  return null;
}
