import { describe, expect, it } from "vitest";
import {
  checkUrl,
  checkUrlWithAddresses,
  classifyAddress,
  type HostResolver,
} from "../../src/guard/index.js";
import { iterations, pick, prng, suiteSeed } from "./seeded.js";

/**
 * URL / SSRF fuzzing: internal addresses in every spelling the WHATWG URL parser (and so Node's
 * fetch) accepts — decimal, octal, hex, short forms, mixed radix, percent-encoded and full-width
 * digits, IPv6 with embedded IPv4 (mapped, NAT64, 6to4, compatible), trailing dots — wrapped in
 * userinfo tricks, ports, backslashes, tabs and case changes. The DNS answer for any name is a
 * public address, so a host mistaken for a name would be allowed: the check must never allow one.
 * Then DNS rebinding: resolvers that answer differently each time, or mix internal addresses in.
 * URL_FUZZ_ITERATIONS (default 8,000).
 */

const N = iterations("URL_FUZZ_ITERATIONS", 8000);
const PUBLIC = ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"];

/** IPv4 ranges that are not globally reachable: [first octets, prefix length]. */
const V4_RANGES: readonly [number[], number][] = [
  [[127], 8],
  [[10], 8],
  [[0], 8],
  [[172, 16], 12],
  [[192, 168], 16],
  [[169, 254], 16],
  [[100, 64], 10],
  [[192, 0, 0], 24],
  [[198, 18], 15],
  [[224], 4],
  [[240], 4],
];

function internalV4(rand: () => number): number[] {
  const [prefix, bits] = pick(rand, V4_RANGES);
  const value = prefix.reduce((acc, octet, i) => acc | (octet << (24 - 8 * i)), 0) >>> 0;
  const hostBits = 32 - bits;
  const host = hostBits === 32 ? Math.floor(rand() * 2 ** 32) : Math.floor(rand() * 2 ** hostBits);
  const address = ((value & ~(2 ** hostBits - 1)) | host) >>> 0;
  return [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255];
}

const radix = (rand: () => number, n: number): string =>
  pick(rand, [
    () => String(n),
    () => `0x${n.toString(16)}`,
    () => `0X${n.toString(16).toUpperCase()}`,
    () => (n === 0 ? "0" : `0${n.toString(8)}`),
    () => `00${n.toString(8)}`,
  ])();

/** One spelling of an IPv4 address that the WHATWG parser reads back as the same address. */
function spellV4(rand: () => number, o: number[]): string {
  const [a = 0, b = 0, c = 0, d = 0] = o;
  const n = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  return pick(rand, [
    () => `${a}.${b}.${c}.${d}`,
    () => String(n),
    () => `0x${n.toString(16)}`,
    () => `0${n.toString(8)}`,
    () => o.map((x) => radix(rand, x)).join("."),
    () => `${radix(rand, a)}.${radix(rand, b)}.${radix(rand, (c << 8) | d)}`,
    () => `${radix(rand, a)}.${radix(rand, (b << 16) | (c << 8) | d)}`,
    () => `${a}.${b}.${c}.${d}.`,
    () => [...`${a}.${b}.${c}.${d}`].map((ch) => (ch === "." ? "." : `%3${ch}`)).join(""),
    () =>
      [...`${a}.${b}.${c}.${d}`]
        .map((ch) => (ch === "." ? "\u3002" : String.fromCharCode(0xff10 + Number(ch))))
        .join(""),
    () => `${a}\uff0e${b}\uff0e${c}\uff0e${d}`,
  ])();
}

const hex4 = (o: number[], i: number) => (((o[i] ?? 0) << 8) | (o[i + 1] ?? 0)).toString(16);

/** An internal IPv6 literal, bracketed, in one of many spellings. */
function spellV6(rand: () => number): string {
  const o = internalV4(rand);
  const dotted = o.join(".");
  const inner = pick(rand, [
    () => "::1",
    () => "0:0:0:0:0:0:0:1",
    () => "0000:0000:0000:0000:0000:0000:0000:0001",
    () => "::",
    () => `::ffff:${dotted}`,
    () => `::FFFF:${hex4(o, 0)}:${hex4(o, 2)}`,
    () => `0:0:0:0:0:ffff:${dotted}`,
    () => `64:ff9b::${dotted}`,
    () => `2002:${hex4(o, 0)}:${hex4(o, 2)}::1`,
    () => `::${dotted}`,
    () => `fe80::${Math.floor(rand() * 65536).toString(16)}`,
    () =>
      `fd${Math.floor(rand() * 256)
        .toString(16)
        .padStart(2, "0")}:1234::1`,
    () => `fc00::${Math.floor(rand() * 65536).toString(16)}`,
    () => "ff02::1",
    () => `2001:db8::${Math.floor(rand() * 65536).toString(16)}`,
    () => "::ffff:0:7f00:1",
  ])();
  return `[${rand() < 0.3 ? inner.toUpperCase() : inner}]`;
}

const INTERNAL_NAMES = [
  "localhost",
  "LOCALHOST",
  "localhost.",
  "api.localhost",
  "metadata.google.internal",
  "metadata",
  "instance-data",
  "kubernetes.default.svc",
  "db.cluster.local",
  "printer.local",
  "intranet",
  "router.home.arpa",
];

/** A URL whose real host is internal, decorated to hide it. */
function internalUrl(rand: () => number): string {
  const kind = rand();
  const host =
    kind < 0.6 ? spellV4(rand, internalV4(rand)) : kind < 0.85 ? spellV6(rand) : pick(rand, INTERNAL_NAMES);
  const scheme = pick(rand, ["http", "https", "HTTP", "hTtPs"]);
  const userinfo = pick(rand, [
    "",
    "",
    "user@",
    "user:pass@",
    "example.com@",
    "example.com:443@",
    "a%40example.com@",
  ]);
  const port = pick(rand, ["", "", ":80", ":8080", ":443", ":6379"]);
  const path = pick(rand, [
    "/",
    "",
    "/latest/meta-data/",
    "/?next=https://example.com/",
    "#@example.com",
    "/..;/x",
  ]);
  const sep = pick(rand, ["//", "//", "\\\\", "/\\", "\\/"]);
  let url = `${scheme}:${sep}${userinfo}${host}${port}${path}`;
  if (rand() < 0.1) url = `${url.slice(0, 9)}\t${url.slice(9)}`;
  if (rand() < 0.1) url = `  ${url}\n`;
  return url;
}

/** Resolves every name to public addresses: a host taken for a name would pass. */
const publicDns: HostResolver = { resolve: async () => PUBLIC };

describe(`SSRF fuzz, ${N} URLs`, () => {
  it("never allows a URL whose host is an internal address or name, however it is spelled", async () => {
    const seed = suiteSeed("ssrf-spellings", 0x55e1);
    const rand = prng(seed);
    const verdicts = { ask: 0, deny: 0 };
    for (let i = 0; i < N; i++) {
      const url = internalUrl(rand);
      const where = `seed ${seed} case ${i}: ${JSON.stringify(url)}`;
      // The generator's own check: the URL parser must read the host as the internal one we meant.
      let parsedHost: string | undefined;
      try {
        parsedHost = new URL(url.trim()).hostname;
      } catch {
        parsedHost = undefined;
      }
      if (parsedHost !== undefined && /^[\d.]+$|^\[/.test(parsedHost)) {
        expect(
          classifyAddress(parsedHost.replace(/^\[|\]$/g, "")).internal,
          `${where} parses to ${parsedHost}`,
        ).toBe(true);
      }
      const sync = checkUrlWithAddresses(url, PUBLIC);
      const viaDns = await checkUrl(url, publicDns);
      for (const verdict of [sync, viaDns]) {
        expect(verdict.verdict, `${where} → ${JSON.stringify(verdict)}`).not.toBe("allow");
        expect(verdict.connectTo, where).toEqual([]);
        if (verdict.verdict === "ask") expect(verdict.internal, where).toBe(true);
      }
      verdicts[sync.verdict as "ask" | "deny"]++;
    }
    // Most spellings are valid URLs that reach the address check (not merely rejected as invalid).
    expect(verdicts.ask, JSON.stringify(verdicts)).toBeGreaterThan(N * 0.5);
  });

  it("allows a public name only when every address of its single lookup is public, and pins those (DNS rebinding)", async () => {
    const seed = suiteSeed("ssrf-rebinding", 0x55e2);
    const rand = prng(seed);
    for (let i = 0; i < Math.ceil(N / 4); i++) {
      // Each lookup answers differently: public, internal, mixed, empty, or fails.
      const answers: (readonly string[] | Error)[] = Array.from({ length: 3 }, () =>
        pick(rand, [
          () => [pick(rand, PUBLIC)],
          () => [internalV4(rand).join(".")],
          () => [pick(rand, PUBLIC), internalV4(rand).join(".")],
          () => [`::ffff:${internalV4(rand).join(".")}`],
          () => ["::1"],
          () => PUBLIC,
          () => [],
          () => ["localhost"],
          () => new Error("SERVFAIL"),
        ])(),
      );
      let lookups = 0;
      const rebinding: HostResolver = {
        async resolve() {
          const answer = answers[Math.min(lookups++, answers.length - 1)] as readonly string[] | Error;
          if (answer instanceof Error) throw answer;
          return answer;
        },
      };
      const url = `https://${pick(rand, ["rebind.example.com", "cdn.example.net", "a.b.example.org."])}${pick(rand, ["/", ":8443/x"])}`;
      const verdict = await checkUrl(url, rebinding);
      const first = answers[0] as readonly string[] | Error;
      const where = `seed ${seed} case ${i}: ${url} answers ${JSON.stringify(answers.map(String))} → ${JSON.stringify(verdict)}`;
      expect(lookups, `${where}: one lookup per check`).toBe(1);
      const firstPublic =
        Array.isArray(first) && first.length > 0 && first.every((a) => !classifyAddress(a).internal);
      if (firstPublic) {
        expect(verdict.verdict, where).toBe("allow");
        // The fetch layer connects to exactly what was checked, never to a second answer.
        expect(verdict.connectTo, where).toEqual(
          (first as readonly string[]).map((a) => classifyAddress(a).address),
        );
      } else {
        expect(verdict.verdict, where).toBe("ask");
        expect(verdict.connectTo, where).toEqual([]);
      }
    }
  });
});
