import { describe, expect, it } from "vitest";
import { classifyAddress } from "./ip-ranges.js";
import { checkUrl, checkUrlWithAddresses, type HostResolver } from "./ssrf.js";

const INTERNAL_LITERALS = [
  "http://127.0.0.1/",
  "http://127.1/",
  "http://127.0.1/",
  "http://2130706433/",
  "http://0x7f000001/",
  "http://0x7f.0.0.1/",
  "http://0177.0.0.1/",
  "http://017700000001/",
  "http://%31%32%37.0.0.1/",
  "http://１２７.０.０.１/",
  "http://127.0.0.1./",
  "http://0.0.0.0/",
  "http://0/",
  "http://10.0.0.1/",
  "http://172.16.5.4/",
  "http://172.31.255.255/",
  "http://192.168.1.1/",
  "http://169.254.169.254/latest/meta-data/",
  "http://100.64.0.1/",
  "http://100.127.255.254/",
  "http://198.18.0.1/",
  "http://192.0.0.8/",
  "http://224.0.0.1/",
  "http://239.255.255.250/",
  "http://255.255.255.255/",
  "http://240.0.0.1/",
  "http://[::1]/",
  "http://[::]/",
  "http://[0:0:0:0:0:0:0:1]/",
  "http://[::ffff:127.0.0.1]/",
  "http://[::ffff:7f00:1]/",
  "http://[::ffff:10.0.0.1]/",
  "http://[::ffff:169.254.169.254]/",
  "http://[::127.0.0.1]/",
  "http://[64:ff9b::127.0.0.1]/",
  "http://[64:ff9b::a9fe:a9fe]/",
  "http://[2002:7f00:1::]/",
  "http://[2002:c0a8:0101::1]/",
  "http://[fc00::1]/",
  "http://[fd12:3456::1]/",
  "http://[fe80::1]/",
  "http://[fec0::1]/",
  "http://[ff02::1]/",
  "http://[2001::1]/",
  "http://[2001:db8::1]/",
  "https://user:pw@127.0.0.1:8443/x",
  "http://127.0.0.1:6379/",
];

const INTERNAL_NAMES = [
  "http://localhost/",
  "http://LOCALHOST/",
  "http://localhost./",
  "http://api.localhost/",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://metadata/",
  "http://instance-data/latest/",
  "http://db.internal/",
  "http://printer.local/",
  "http://intranet/",
  "http://kubernetes.default.svc/",
  "http://redis.default.svc.cluster.local/",
  "http://router.home.arpa/",
];

const EXTERNAL_LITERALS = [
  "http://8.8.8.8/",
  "https://1.1.1.1/dns-query",
  "http://93.184.216.34/",
  "http://[2606:4700:4700::1111]/",
  "http://[64:ff9b::808:808]/",
  "http://[2002:808:808::1]/",
];

const DNS: Record<string, string[]> = {
  "example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "example.com.": ["93.184.216.34"],
  "rebind.example": ["93.184.216.34", "127.0.0.1"],
  "private.example": ["10.1.2.3"],
  "mapped.example": ["::ffff:192.168.0.1"],
  "metadata.example": ["169.254.169.254"],
  "cgnat.example": ["100.100.100.200"],
};

describe("SSRF: internal addresses in every spelling", () => {
  it.each(INTERNAL_LITERALS.map((u) => [u]))("asks for %s", (url) => {
    const v = checkUrlWithAddresses(url, undefined);
    expect(v).toMatchObject({ verdict: "ask", rule: "url.internal-address", internal: true, connectTo: [] });
  });

  it.each(INTERNAL_NAMES.map((u) => [u]))(
    "asks for the internal host name in %s without resolving it",
    (url) => {
      expect(checkUrlWithAddresses(url, ["93.184.216.34"])).toMatchObject({
        verdict: "ask",
        rule: "url.internal-host",
        internal: true,
      });
    },
  );

  it.each(EXTERNAL_LITERALS.map((u) => [u]))("allows the public address in %s", (url) => {
    const v = checkUrlWithAddresses(url, undefined);
    expect(v).toMatchObject({ verdict: "allow", rule: "url.external", internal: false });
    expect(v.connectTo).toHaveLength(1);
  });
});

describe("SSRF: resolved names", () => {
  it.each([
    ["https://example.com/", "allow", "url.external", false],
    ["https://example.com./x", "allow", "url.external", false],
    ["https://rebind.example/", "ask", "url.internal-address", true],
    ["https://private.example/", "ask", "url.internal-address", true],
    ["https://mapped.example/", "ask", "url.internal-address", true],
    ["https://metadata.example/", "ask", "url.internal-address", true],
    ["https://cgnat.example/", "ask", "url.internal-address", true],
    ["https://unknown.example/", "ask", "url.unresolved", true],
  ] as const)("%s → %s (%s)", (url, verdict, rule, internal) => {
    const host = new URL(url).hostname.replace(/\.$/, "");
    expect(checkUrlWithAddresses(url, DNS[host])).toMatchObject({ verdict, rule, internal });
  });

  it("returns every checked address for the fetch layer to connect to", () => {
    expect(checkUrlWithAddresses("https://example.com/", DNS["example.com"]).connectTo).toEqual([
      "93.184.216.34",
      "2606:2800:220:1:248:1893:25c8:1946",
    ]);
  });

  it("treats a failed lookup as internal", async () => {
    const failing: HostResolver = { resolve: () => Promise.reject(new Error("ENOTFOUND")) };
    await expect(checkUrl("https://nowhere.example/", failing)).resolves.toMatchObject({
      verdict: "ask",
      rule: "url.unresolved",
      internal: true,
    });
    const empty: HostResolver = { resolve: async () => [] };
    await expect(checkUrl("https://nowhere.example/", empty)).resolves.toMatchObject({
      rule: "url.unresolved",
    });
  });

  it("uses the injected resolver only for names", async () => {
    const asked: string[] = [];
    const resolver: HostResolver = {
      resolve: async (host) => {
        asked.push(host);
        return DNS[host] ?? [];
      },
    };
    await checkUrl("http://127.0.0.1/", resolver);
    await checkUrl("http://localhost/", resolver);
    const v = await checkUrl("https://example.com/", resolver);
    expect(asked).toEqual(["example.com"]);
    expect(v.verdict).toBe("allow");
  });
});

describe("SSRF: schemes and malformed URLs", () => {
  it.each([
    ["file:///etc/passwd", "url.scheme"],
    ["gopher://127.0.0.1:6379/_INFO", "url.scheme"],
    ["ftp://example.com/x", "url.scheme"],
    ["javascript:alert(1)", "url.scheme"],
    ["data:text/plain,hi", "url.scheme"],
    ["dict://127.0.0.1:11211/", "url.scheme"],
    ["not a url", "url.invalid"],
    ["http://", "url.invalid"],
    ["http://[::1/", "url.invalid"],
  ])("denies %s (%s)", (url, rule) => {
    expect(checkUrlWithAddresses(url, ["93.184.216.34"])).toMatchObject({ verdict: "deny", rule });
  });
});

describe("address classification", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["::ffff:127.0.0.1", "ipv4-mapped:loopback"],
    ["64:ff9b::a00:1", "nat64:private"],
    ["2002:a00:1::", "6to4:private"],
    ["::a00:1", "ipv4-compatible"],
    ["fe80::1%eth0", "linkLocal"],
    ["not-an-ip", "not-an-address"],
  ])("%s is internal (%s)", (address, range) => {
    expect(classifyAddress(address)).toMatchObject({ internal: true, range });
  });
});
