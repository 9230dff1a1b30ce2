import { lookup } from "node:dns/promises";
import type { HostResolver } from "../guard/index.js";

/** The system resolver as the SSRF check's port: every address a name resolves to (v4 and v6). */
export function systemHostResolver(timeoutMs = 5000): HostResolver {
  return {
    async resolve(host) {
      const answer = lookup(host, { all: true, verbatim: true });
      const timeout = new Promise<never>((_, reject) => {
        const timer = setTimeout(() => reject(new Error(`DNS lookup of ${host} timed out`)), timeoutMs);
        timer.unref();
      });
      const addresses = await Promise.race([answer, timeout]);
      return addresses.map((a) => a.address);
    },
  };
}
