import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { readRouteTables } from "./read-route-tables.js";
import { findDefaultRoute, parseIpv4RouteTable } from "./route-table.js";

const IP = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].find((p) => existsSync(p));

describe("readRouteTables", () => {
  it.runIf(process.platform === "linux")(
    "reads this machine's /proc/net/route, every route line of which the parser understands",
    async () => {
      const tables = await readRouteTables();
      expect(tables.ipv4).toMatch(/^Iface\s+Destination\s+Gateway\s+Flags/);
      const lines = (tables.ipv4 as string).split("\n").filter((l) => l.trim() !== "");
      expect(parseIpv4RouteTable(tables.ipv4 as string)).toHaveLength(lines.length - 1);
      if (IP) {
        // The kernel's own view, through iproute2: a default route there iff findDefaultRoute finds one.
        const { stdout } = await promisify(execFile)(IP, ["-4", "route", "show", "default"]);
        const v4 = findDefaultRoute({ ipv4: tables.ipv4 });
        expect(v4 !== undefined).toBe(
          /\bdev (?!lo\b)\S+/.test(stdout) && !/^(unreachable|prohibit|blackhole)/m.test(stdout),
        );
      }
    },
  );

  it("names a table it cannot read and leaves it out", async () => {
    const tables = await readRouteTables({ ipv4: "/nonexistent/route", ipv6: "/nonexistent/ipv6_route" });
    expect(tables).toEqual({
      ipv4: undefined,
      ipv6: undefined,
      errors: ["/nonexistent/route: ENOENT", "/nonexistent/ipv6_route: ENOENT"],
    });
  });
});
