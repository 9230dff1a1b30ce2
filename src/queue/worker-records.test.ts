import { readFileSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processStartTime } from "../proc/index.js";
import { WorkerRecords } from "./worker-records.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-worker-records-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
const start = processStartTime(process.pid) ?? "";

async function record(workerId: string, fields: Record<string, unknown>): Promise<void> {
  const base = { v: 1, workerId, pid: process.pid, start, boot, host: hostname() };
  await writeFile(join(dir, `${workerId}.json`), JSON.stringify({ ...base, ...fields }));
}

describe("WorkerRecords.gone", () => {
  it("never judges a live process gone, and proves gone only what the record shows ended", async () => {
    const records = new WorkerRecords(dir);
    records.add("live-here");
    await record("same-pid-other-start", { start: `${Number(start) + 1}` });
    await record("earlier-boot", { boot: "00000000-0000-0000-0000-000000000000" });
    await record("no-start-time", { start: "" });
    await record("other-host", { host: `not-${hostname()}`, start: "1" });
    await writeFile(join(dir, "torn.json"), "{");
    expect(records.gone().sort()).toEqual(["earlier-boot", "same-pid-other-start"]);
    // An unreadable record is dropped; the others stay until their worker closes or is taken over.
    expect((await readdir(dir)).sort()).toEqual(
      [
        "earlier-boot.json",
        "live-here.json",
        "no-start-time.json",
        "other-host.json",
        "same-pid-other-start.json",
      ].sort(),
    );
    records.remove("live-here");
    expect(await readdir(dir)).not.toContain("live-here.json");
  });
});
