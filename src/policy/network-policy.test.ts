import { describe, expect, it } from "vitest";
import {
  isHostAllowed,
  networkPolicyNote,
  networkPolicyRemoval,
  validateHostPattern,
} from "./network-policy.js";

describe("isHostAllowed", () => {
  const allowed = [
    "api.example.com",
    "*.internal.example.org",
    "10.0.0.5",
    "[2001:db8::1]",
    "Docs.Example.NET.",
  ];
  it.each([
    ["api.example.com", true],
    ["API.EXAMPLE.COM", true],
    ["api.example.com.", true],
    ["evil-api.example.com", false],
    ["example.com", false],
    ["x.internal.example.org", true],
    ["a.b.internal.example.org", true],
    ["internal.example.org", false],
    ["notinternal.example.org", false],
    ["10.0.0.5", true],
    ["10.0.0.50", false],
    ["2001:db8::1", true],
    ["[2001:db8::1]", true],
    ["docs.example.net", true],
    ["", false],
  ])("%j → %s", (host, expected) => {
    expect(isHostAllowed(host, allowed)).toBe(expected);
  });

  it("allows nothing with an empty list", () => {
    expect(isHostAllowed("api.example.com", [])).toBe(false);
  });

  it.each([
    "*",
    "*.",
    "https://api.example.com",
    "api.example.com:443",
    "a*.example.com",
    "api.example.com/path",
  ])("never matches through the invalid pattern %j", (pattern) => {
    expect(validateHostPattern(pattern)).toBeDefined();
    expect(isHostAllowed("api.example.com", [pattern])).toBe(false);
  });

  it.each(["example.com", "*.example.com", "::1", "[::1]", "192.168.1.1"])(
    "accepts %j as a pattern",
    (pattern) => {
      expect(validateHostPattern(pattern)).toBeUndefined();
    },
  );
});

describe("network policy layer", () => {
  it.each([
    ["deny", ["network.outbound"], true],
    ["deny", ["fs.read"], false],
    ["restricted", ["network.outbound"], false],
    ["allow", ["network.outbound"], false],
  ] as const)("%s with %j removes: %s", (policy, caps, removes) => {
    expect(networkPolicyRemoval(policy, caps) !== undefined).toBe(removes);
  });

  it("notes the host limit of restricted mode, and an empty list that refuses everything", () => {
    expect(networkPolicyNote("restricted", ["network.outbound"], ["a.example"])).toBe(
      "kept; outbound requests only to a.example",
    );
    expect(networkPolicyNote("restricted", ["network.outbound"], [])).toContain(
      "every outbound request will be refused",
    );
    expect(networkPolicyNote("allow", ["network.outbound"], [])).toBeUndefined();
  });
});
