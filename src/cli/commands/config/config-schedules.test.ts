import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";

/**
 * A schedule that cannot fire is a config error: `config check`, `doctor` and the start commands
 * refuse it with exit 2, naming `schedules[i]`, its id and the field (the same checks as
 * `schedules add`). None of these reach Redis: the config is refused first.
 */
const AGENTS = `models:
  scripted: { provider: scripted, script: ./script.yaml }
agents:
  triage: { model: scripted, task: "triage the inbox", workspace: ./ws }
`;
const entry = (id: string, cron: string, timezone = "UTC", agent = "triage") =>
  `  - { id: ${id}, cron: "${cron}", timezone: ${timezone}, agent: ${agent}, overlap: skip, catch_up: none, jitter_seconds: 0, enabled: true, owner: ops, authorized: false }`;

async function configWith(lines: string[]): Promise<{ dir: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), "echo-config-schedules-"));
  const path = join(dir, "echo.yaml");
  await writeFile(path, `redis: { url: "redis://127.0.0.1:1" }\n${AGENTS}schedules:\n${lines.join("\n")}\n`);
  return { dir, path };
}

const BAD = [
  entry("fine", "0 2 * * *"),
  entry("zone", "0 2 * * *", "Europe/Berln"),
  entry("minute", "61 * * * *"),
  entry("macro", "@daily"),
  entry("seven", "0 0 0 * * * *"),
  entry("april", "0 0 31 4 *"),
  entry("ghost-agent", "0 2 * * *", "UTC", "ghost"),
  entry("fine", "0 3 * * *"),
];

const EXPECTED = [
  /schedules\[1\] \(id "zone"\)\.timezone: unknown time zone "Europe\/Berln"/,
  /schedules\[2\] \(id "minute"\)\.cron: "61 \* \* \* \*" has an invalid minute field "61": 61 is outside 0-59/,
  /schedules\[3\] \(id "macro"\)\.cron: "@daily" is a macro, which is not supported; write its fields instead: "0 0 \* \* \*"/,
  /schedules\[4\] \(id "seven"\)\.cron: .* has 7 fields/,
  /schedules\[5\] \(id "april"\)\.cron: "0 0 31 4 \*" never fires/,
  /schedules\[6\] \(id "ghost-agent"\)\.agent: no agent "ghost" in agents \(defined: triage\)/,
  /schedules\[7\] \(id "fine"\)\.id: the id "fine" is already used by schedules\[0\]/,
];

describe("config schedules are checked like `schedules add`", () => {
  it("config check exits 2 naming each bad schedule, its index, id and field", async () => {
    const { dir, path } = await configWith(BAD);
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check", "--config", path], out.io)).toBe(2);
    for (const pattern of EXPECTED) expect(out.stderr()).toMatch(pattern);
    expect(out.stderr()).toContain("the configuration has 7 problems");
    expect(out.stderr()).not.toMatch(/schedules\[0\] \(id/);
  });

  it("config check --json lists the problems with their paths", async () => {
    const { dir, path } = await configWith([entry("zone", "0 2 * * *", "Europe/Berln")]);
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check", "--config", path, "--json"], out.io)).toBe(2);
    const report = JSON.parse(out.stdout());
    expect(report).toMatchObject({ valid: false, code: "CONFIG_INVALID" });
    expect(report.problems.map((p: { path: string }) => p.path)).toEqual([
      'schedules[0] (id "zone").timezone',
    ]);
  });

  it("config check accepts valid schedules (five fields, six with seconds first)", async () => {
    const { dir, path } = await configWith([entry("five", "0 2 * * MON-FRI"), entry("six", "30 0 2 * * *")]);
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check", "--config", path], out.io)).toBe(0);
  });

  it("doctor fails the config check for a schedule that cannot fire", async () => {
    const { dir, path } = await configWith([entry("minute", "61 * * * *")]);
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["doctor", "--config", path, "--timeout", "1"], out.io)).not.toBe(0);
    expect(out.stdout() + out.stderr()).toMatch(/schedules\[0\] \(id "minute"\)\.cron: .*minute field "61"/);
  });

  it.each([["start"], ["scheduler"]])("%s exits 2 before it starts anything", async (command) => {
    const { dir, path } = await configWith(BAD);
    const out = bufferIo("", { HOME: dir, REDIS_URL: "redis://127.0.0.1:1" }, dir);
    expect(await runCli([command, "--config", path, "--data-dir", join(dir, "data")], out.io)).toBe(2);
    for (const pattern of EXPECTED) expect(out.stderr()).toMatch(pattern);
  });
});
