import { readFile } from "node:fs/promises";
import type { RouteTables } from "./route-table.js";

/** Where Linux prints this process's network namespace's routing tables. */
export const ROUTE_TABLE_PATHS = { ipv4: "/proc/net/route", ipv6: "/proc/net/ipv6_route" } as const;

/**
 * Reads the routing tables of this process's network namespace (a sandbox without a network
 * namespace of its own sees the host's; one with `--unshare-net` sees only `lo`). Sends nothing.
 * A table that cannot be read (not Linux, IPv6 disabled) is left out and its error named.
 */
export async function readRouteTables(
  paths: { ipv4: string; ipv6: string } = ROUTE_TABLE_PATHS,
): Promise<RouteTables> {
  const read = async (path: string): Promise<{ text?: string; error?: string }> => {
    try {
      return { text: await readFile(path, "utf8") };
    } catch (err) {
      return { error: `${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
    }
  };
  const [ipv4, ipv6] = await Promise.all([read(paths.ipv4), read(paths.ipv6)]);
  // IPv4's error first, whichever read failed first: the message reads the same every time.
  const errors = [ipv4.error, ipv6.error].filter((error): error is string => error !== undefined);
  return { ipv4: ipv4.text, ipv6: ipv6.text, errors };
}
