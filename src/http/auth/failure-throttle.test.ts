import { describe, expect, it } from "vitest";
import { isRunnerError } from "../../shared/index.js";
import { resolveFailureLimits, retryAfterSeconds, sourceOf } from "./failure-throttle.js";

describe("sourceOf", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::99", "2001:db8:1:2::/64"],
    ["2001:DB8:0001:0002:ffff::1", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["not an address", "not an address"],
  ])("counts %s as %s", (ip, source) => {
    expect(sourceOf(ip)).toBe(source);
  });

  it("puts every address of one /64 together", () => {
    const sources = new Set(
      Array.from({ length: 50 }, (_, i) =>
        sourceOf(`2001:db8:aa:bb:${i.toString(16)}::${(i * 7).toString(16)}`),
      ),
    );
    expect([...sources]).toEqual(["2001:db8:aa:bb::/64"]);
  });
});

describe("failure limits", () => {
  it("fills defaults and refuses nonsense", () => {
    expect(resolveFailureLimits({ perSource: 3 })).toMatchObject({ perSource: 3, global: 300, perLink: 20 });
    for (const bad of [{ perSource: 0 }, { global: 1.5 }, { windowMs: 10 }]) {
      try {
        resolveFailureLimits(bad);
        expect.unreachable();
      } catch (err) {
        expect(isRunnerError(err, "CONFIG_INVALID")).toBe(true);
      }
    }
    expect(retryAfterSeconds(1)).toBe("1");
    expect(retryAfterSeconds(59_001)).toBe("60");
  });
});
