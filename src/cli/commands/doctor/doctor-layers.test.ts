import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../../config/index.js";
import { checkWorkspaceLayer } from "./doctor-layers.js";

async function configWith(project: Record<string, unknown>) {
  const dir = await mkdtemp(join(tmpdir(), "echo-doctor-layers-"));
  const path = join(dir, "echo.yaml");
  await writeFile(path, stringify(project));
  return { dir, config: (await loadConfig({ configPath: path, env: {}, userConfigPath: null })).config };
}

describe("doctor: workspace.layer", () => {
  it("makes a real layer in the data dir and says runs get one (leaving nothing behind)", async () => {
    const { dir, config } = await configWith({ tools: { exec: { host: "sandbox" } } });
    const check = await checkWorkspaceLayer(config, join(dir, "data"));
    expect(check).toMatchObject({ name: "workspace.layer", status: "ok" });
    expect(check.reason).toContain(join(dir, "data", "layers"));
    // It made the data dir to probe in, and removed it again: doctor leaves nothing behind.
    expect((await readdir(dir)).sort()).toEqual(["echo.yaml"]);
  });

  it("warns when layers are off or the exec host is local, and fails a required layer it cannot make", async () => {
    const off = await configWith({ execution: { workspace_layer: "off" } });
    expect(await checkWorkspaceLayer(off.config, join(off.dir, "data"))).toMatchObject({ status: "warn" });
    const local = await configWith({ tools: { exec: { host: "local" } } });
    expect((await checkWorkspaceLayer(local.config, join(local.dir, "data"))).reason).toMatch(
      /host is local/,
    );
    const required = await configWith({
      tools: { exec: { host: "sandbox" } },
      execution: { workspace_layer: "required" },
    });
    // A data dir below a file cannot hold a layer.
    await writeFile(join(required.dir, "file"), "x");
    const check = await checkWorkspaceLayer(required.config, join(required.dir, "file", "data"));
    expect(check).toMatchObject({ status: "fail" });
    expect(check.reason).toMatch(/required/);
  });
});
