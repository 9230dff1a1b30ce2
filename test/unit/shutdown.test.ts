import { describe, expect, it } from "vitest";
import { runShutdown } from "../../workers/shutdown.js";

const never = () => new Promise<void>(() => undefined);

describe("runShutdown", () => {
  it("runs every step, gives up on one that hangs, and names what it left undone", async () => {
    const ran: string[] = [];
    const report = await runShutdown(
      [
        { name: "worker", run: never, ifUnfinished: "runs stay in doubt" },
        { name: "tools", run: async () => void ran.push("tools"), ifUnfinished: "-" },
        {
          name: "redis",
          run: async () => {
            throw new Error("connection is closed");
          },
          ifUnfinished: "writes may be missing",
        },
      ],
      { deadlineMs: 50, minStepMs: 20 },
    );
    expect(ran).toEqual(["tools"]);
    expect(report.clean).toBe(false);
    expect(report.notFlushed).toHaveLength(2);
    expect(report.notFlushed[0]).toMatch(/^worker: did not finish within \d+ ms; runs stay in doubt$/);
    expect(report.notFlushed[1]).toBe("redis: failed (connection is closed); writes may be missing");
  });

  it("reports clean when every step finishes", async () => {
    const report = await runShutdown([{ name: "a", run: async () => 1, ifUnfinished: "-" }], {
      deadlineMs: 1000,
    });
    expect(report).toEqual({ clean: true, notFlushed: [] });
  });
});
