import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";

/** `config check` says which configuration it judged, and when it is not the one `start` would run. */
describe("config check names what it checked", () => {
  it("without a file of one's own: says these are the defaults and names the demo npm start runs", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-check-src-"));
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check"], out.io)).toBe(0);
    expect(out.stdout()).toContain("so these are the built-in defaults");
    expect(out.stdout()).toContain("--config config/demo.yaml");
  });

  it("with a file: names it, and no note", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-check-src-"));
    await writeFile(join(dir, "mine.yaml"), "logging:\n  level: warn\n");
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check", "--config", join(dir, "mine.yaml")], out.io)).toBe(0);
    expect(out.stdout()).toContain(join(dir, "mine.yaml"));
    expect(out.stdout()).not.toContain("built-in defaults");
  });
});
