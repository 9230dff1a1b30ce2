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
  const errors: string[] = [];
  const read = async (path: string): Promise<string | undefined> => {
    try {
      return await readFile(path, "utf8");
    } catch (err) {
      errors.push(`${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      return undefined;
    }
  };
  const [ipv4, ipv6] = await Promise.all([read(paths.ipv4), read(paths.ipv6)]);
  return { ipv4, ipv6, errors };
}
