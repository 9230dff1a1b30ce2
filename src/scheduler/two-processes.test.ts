import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import {
  deleteKeysWithPrefix,
  testRedisClient,
  testRedisUrl,
  uniquePrefix,
} from "../../test/helpers/test-redis.js";
import { scheduleInput, schedulerFixture } from "./test-fixture.js";

const HOUR = 3_600_000;
const T0 = Date.parse("2025-01-01T00:30:00Z");
let redis: Redis;

afterAll(() => redis?.disconnect());

describe("two scheduler processes", () => {
  it("fire each tick once, whether they race on the claims or run passes side by side", async () => {
    redis = testRedisClient();
    const prefix = uniquePrefix("proc");
    const f = schedulerFixture(redis, prefix, T0);
    try {
      await f.service.create(scheduleInput({ overlap: "allow" }), { approvalSource: null });
      const ticks = 10;
      const first = Date.parse("2025-01-01T01:00:00Z");
      const script = resolve(import.meta.dirname, "race-child.fixture.ts");
      const children = ["p1", "p2"].map((owner) =>
        startChild(script, [testRedisUrl(), prefix, owner, String(first), String(ticks), String(HOUR)]),
      );
      await Promise.all(children.map((c) => c.waitForOutput(/ready/)));
      // Both are connected and waiting: release them together.
      await redis.rpush(`${prefix}:go:p1`, "go");
      await redis.rpush(`${prefix}:go:p2`, "go");
      const codes = await Promise.all(children.map((c) => c.exited));
      expect(codes).toEqual([0, 0]);
      const outputs = children.map((c) => JSON.parse(c.output().trim().split("\n").pop()!));
      const fired = outputs.flatMap((o) => o.fired as string[]).filter((r) => r === "fired");
      expect(fired).toHaveLength(ticks);
      // Then each process runs a pass at each of the next 10 ticks: the leader fires each once.
      expect(outputs.flatMap((o) => o.passes as number[]).reduce((a, b) => a + b, 0)).toBe(ticks);
      expect(await f.jobIds()).toHaveLength(2 * ticks);
      const history = await f.store.history("nightly", 100);
      expect(history.filter((e) => e.kind === "fired")).toHaveLength(2 * ticks);
    } finally {
      await f.close();
      await deleteKeysWithPrefix(redis, prefix);
      await deleteKeysWithPrefix(redis, `{${prefix}}`);
    }
  });
});

/** `node bin/run-ts.js <script> ...args` with its output collected. */
function startChild(script: string, args: string[]) {
  const runTs = resolve(import.meta.dirname, "../../bin/run-ts.js");
  const child: ChildProcess = spawn(process.execPath, [runTs, script, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | string>((done) =>
    child.once("exit", (code, signal) => done(code ?? signal ?? "unknown")),
  );
  return {
    exited,
    output: () => out,
    async waitForOutput(pattern: RegExp): Promise<void> {
      // Event-driven: resolves on the first chunk that matches, fails if the child exits first.
      await new Promise<void>((done, fail) => {
        const check = () => {
          if (pattern.test(out)) done();
        };
        child.stdout?.on("data", check);
        void exited.then((code) => fail(new Error(`child exited (${code}) before ${pattern}: ${out}${err}`)));
        check();
      });
    },
  };
}
