import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";

/** The example configuration at the end of seed 000's configuration section, verbatim. */
const SEED_000_EXAMPLE = `
tools:
  profile: coding
  also_allow:
    - exec
    - process
  deny:
    - skill_install
    - cronjob
  restrict_to_workspace: true
  safe_write_root: /home/user/project

permissions:
  approval:
    mode: smart
    auto_approve:
      - exec
    trusted_channels:
      - cli
    unattended_policy: deny

security:
  profile: daemon

execution:
  network_policy: allow
`;

async function configFile(text: string): Promise<{ dir: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), "echo-gate-cli-"));
  const path = join(dir, "echo.yaml");
  await writeFile(path, text);
  return { dir, path };
}

async function check(path: string, dir: string, request: unknown) {
  const out = bufferIo("", { HOME: dir, PATH: process.env.PATH }, dir);
  const code = await runCli(["gate", "check", "--config", path, "--json", JSON.stringify(request)], out.io);
  return { code, decision: JSON.parse(out.stdout()), text: out.stderr() };
}

describe("seed 000's example configuration", () => {
  it("loads, and each statement the seed makes about it holds", async () => {
    const { dir, path } = await configFile(SEED_000_EXAMPLE);
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check", "--config", path], out.io)).toBe(0);

    // cronjob and skill_install are not available (outside the coding profile, and denied).
    for (const tool of ["cronjob", "skill_install"]) {
      const { decision } = await check(path, dir, { tool, args: {} });
      expect(decision).toMatchObject({ verdict: "deny", step: 0 });
    }
    // The daemon security profile removes exec and process although also_allow adds them (layers only tighten)...
    for (const tool of ["exec", "process"]) {
      const { decision } = await check(path, dir, { tool, args: { command: "ls" } });
      expect(decision).toMatchObject({ verdict: "deny", step: 0, layer: "security_profile=daemon" });
    }
    // ...so auto_approve: [exec] and the trusted cli channel can never let exec through.
    // safe_write_root: a write outside /home/user/project is denied at step 1, even inside the workspace.
    const write = await check(path, dir, {
      tool: "write_file",
      args: { path: "notes.txt", content: "x" },
      ctx: { workspace: dir },
    });
    expect(write.decision).toMatchObject({ verdict: "deny", step: 1 });
    expect(write.decision.reason).toContain("/home/user/project");
    // Reading inside the workspace is allowed interactively (step 5).
    const readInside = await check(path, dir, {
      tool: "read_file",
      args: { path: "notes.txt" },
      ctx: { workspace: dir },
    });
    expect(readInside.decision).toMatchObject({ verdict: "allow", step: 5 });
    // restrict_to_workspace: a path outside the workspace is denied by the guard at step 1.
    const outside = await check(path, dir, {
      tool: "write_file",
      args: { path: "/etc/passwd", content: "x" },
      ctx: { workspace: dir },
    });
    expect(outside.decision).toMatchObject({ verdict: "deny", step: 1 });
    // network_policy allow keeps web tools; an internal address still needs a person (SSRF).
    const internal = await check(path, dir, {
      tool: "web_fetch",
      args: { url: "http://169.254.169.254/latest/meta-data" },
    });
    expect(internal.decision).toMatchObject({ verdict: "ask", flagged: true });
    // unattended_policy deny: an unattended run without a cron grant may not write.
    const unattended = await check(path, dir, {
      tool: "todo",
      args: { action: "add", item: "x" },
      ctx: { unattended: true, workspace: dir },
    });
    expect(unattended.decision).toMatchObject({ verdict: "deny", step: 4 });
    // ...and read-only calls still run unattended.
    const read = await check(path, dir, {
      tool: "read_file",
      args: { path: "a" },
      ctx: { unattended: true, workspace: dir },
    });
    expect(read.decision).toMatchObject({ verdict: "allow", step: 4 });
  });
});

describe("echo-runner gate check", () => {
  it("prints the decision as JSON and a line of text, exit 1 unless allowed", async () => {
    const { dir, path } = await configFile(
      "security:\n  profile: personal_cli\npermissions:\n  elevated:\n    enabled: false\n",
    );
    const hard = await check(path, dir, { tool: "exec", args: { command: "rm -rf /" } });
    expect(hard.code).toBe(1);
    expect(hard.decision).toMatchObject({ verdict: "deny", step: 1, stepName: "static_guard" });
    expect(hard.text).toMatch(/^DENY at step 1 \(static_guard\)/);
    const read = await check(path, dir, { tool: "read_file", args: { path: "README.md" } });
    expect(read.code).toBe(0);
    const dangerous = await check(path, dir, {
      tool: "cronjob",
      args: {},
      ctx: { unattended: true, cronAuthorized: true },
    });
    expect(dangerous.decision).toMatchObject({ verdict: "deny", step: 4 });
    const child = await check(path, dir, {
      tool: "exec",
      args: { command: "make build" },
      ctx: { parentExecutionId: "p1" },
    });
    expect(child.decision).toMatchObject({ verdict: "deny", step: 11 });
  });

  it.each([
    ["read_file", { path: "report\u202etxt.exe" }],
    ["write_file", { path: "notes.md", content: "safe\u2067 text" }],
    ["todo", { action: "add", item: "call \u200bmom" }],
    ["exec", { command: "ls docs\u202e" }],
  ])(
    "flags a %s call whose arguments hold an invisible or bidi character (soft: a person decides)",
    async (tool, args) => {
      const { dir, path } = await configFile(
        "security:\n  profile: personal_cli\npermissions:\n  elevated:\n    enabled: false\n",
      );
      const { decision } = await check(path, dir, { tool, args, ctx: { workspace: dir } });
      expect(decision).toMatchObject({ verdict: "ask", flagged: true });
      expect(decision.reason).toContain("invisible, direction-changing or control character");
      const plain = await check(path, dir, {
        tool: "read_file",
        args: { path: "report.txt" },
        ctx: { workspace: dir },
      });
      expect(plain.decision).toMatchObject({ verdict: "allow", flagged: false });
    },
  );

  it("answers one JSON line per request in --batch, in order, and reports bad lines without stopping", async () => {
    const { dir, path } = await configFile("security:\n  profile: personal_cli\n");
    const stdin = [
      JSON.stringify({ tool: "read_file", args: { path: "x" } }),
      "not json",
      JSON.stringify({ tool: "cronjob", args: {}, ctx: { unattended: true } }),
      JSON.stringify({ tool: "nope_tool", args: {} }),
    ].join("\n");
    const out = bufferIo(stdin, { HOME: dir, PATH: process.env.PATH }, dir);
    expect(await runCli(["gate", "check", "--config", path, "--batch"], out.io)).toBe(0);
    const lines = out
      .stdout()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({ verdict: "allow" });
    expect(lines[1].error).toContain("line 2");
    expect(lines[2]).toMatchObject({ verdict: "deny", step: 4 });
    expect(lines[3]).toMatchObject({ verdict: "deny", step: 0 });
  });

  it("rejects a request that is not a gate request, naming the field", async () => {
    const { dir, path } = await configFile("");
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["gate", "check", "--config", path, "--json", '{"tool": 5}'], out.io)).toBe(2);
    expect(out.stderr()).toContain("tool");
  });
});

describe("echo-runner policy explain shows the gate's steps for a context", () => {
  it("traces each step: next until the deciding one, then not reached", async () => {
    const { dir, path } = await configFile("security:\n  profile: personal_cli\n");
    const out = bufferIo("", { HOME: dir, PATH: process.env.PATH }, dir);
    const code = await runCli(
      [
        "policy",
        "explain",
        "cronjob",
        "--config",
        path,
        "--ctx",
        '{"unattended": true, "cronAuthorized": true}',
        "--json",
      ],
      out.io,
    );
    expect(code).toBe(0);
    const explanation = JSON.parse(out.stdout());
    expect(explanation.gate.evaluated).toBe(true);
    expect(explanation.gate.note).toContain("unattended");
    expect(explanation.gate.steps.map((s: { verdict: string }) => s.verdict)).toEqual([
      "next",
      "next",
      "next",
      "deny",
      "skip",
      "skip",
      "skip",
      "skip",
      "skip",
      "skip",
      "skip",
    ]);
    const text = bufferIo("", { HOME: dir, PATH: process.env.PATH }, dir);
    await runCli(
      ["policy", "explain", "exec", "--config", path, "--args", '{"command": "rm -rf /"}'],
      text.io,
    );
    expect(text.stdout()).toMatch(/Approval gate:\n\s+1 static_guard: deny/);
  });

  it("says the gate is not evaluated when a layer removes the tool", async () => {
    const { dir, path } = await configFile("tools:\n  deny: [exec]\n");
    const out = bufferIo("", { HOME: dir, PATH: process.env.PATH }, dir);
    expect(await runCli(["policy", "explain", "exec", "--config", path], out.io)).toBe(1);
    expect(out.stdout()).toContain("Approval gate: not evaluated (a policy layer removes the tool");
  });

  it("rejects a --ctx that is not a context", async () => {
    const { dir, path } = await configFile("");
    const out = bufferIo("", { HOME: dir }, dir);
    expect(
      await runCli(["policy", "explain", "exec", "--config", path, "--ctx", '{"unatended": true}'], out.io),
    ).toBe(2);
    expect(out.stderr()).toContain("unatended");
  });
});

describe("the session mode fences paths when restrict_to_workspace is off", () => {
  const loose = (mode: string) => `
tools:
  profile: full
  restrict_to_workspace: false
security:
  profile: personal_cli
permissions:
  approval:
    unattended_policy: allow_safe
execution:
  session_mode: ${mode}
`;

  it.each([
    ["read_file", { path: "/etc/shadow" }, true],
    ["write_file", { path: "/tmp/echo-fence-x", content: "x" }, false],
    ["exec", { command: "cat /etc/hostname" }, false],
    ["exec", { command: "cp notes.txt ../../outside.txt" }, false],
  ])("session mode workspace denies %s %j at step 1", async (tool, args, unattended) => {
    const { dir, path } = await configFile(loose("workspace"));
    const { decision } = await check(path, dir, { tool, args, ctx: { unattended } });
    expect(decision).toMatchObject({ verdict: "deny", step: 1 });
    expect(decision.reason).toContain("outside the workspace");
  });

  it("session mode full leaves the fence open: an unattended read of a file outside is allowed", async () => {
    const { dir, path } = await configFile(loose("full"));
    const { decision } = await check(path, dir, {
      tool: "read_file",
      args: { path: "/etc/hostname" },
      ctx: { unattended: true },
    });
    expect(decision).toMatchObject({ verdict: "allow", step: 4 });
  });

  it("policy explain says what fences paths, and the gate agrees", async () => {
    const { dir, path } = await configFile(loose("workspace"));
    const out = bufferIo("", { HOME: dir, PATH: process.env.PATH }, dir);
    await runCli(
      ["policy", "explain", "read_file", "--config", path, "--args", '{"path":"/etc/shadow"}'],
      out.io,
    );
    expect(out.stdout()).toContain(
      "paths:        workspace-only: file tools, exec's working directory and path operands (session mode workspace)",
    );
    expect(out.stdout()).toMatch(/1 static_guard: deny — .*outside the workspace/);
  });
});

describe("gate check on the sandbox host", () => {
  it("lets a cron grant cover a command that is not a safe bin, naming the sandbox; a flagged one still needs a person", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-gate-sandbox-"));
    const path = join(dir, "echo.yaml");
    await writeFile(
      path,
      "security: {profile: personal_cli}\npermissions: {elevated: {allow_from: {cron: [ann]}}}\n",
    );
    const ctx = { unattended: true, cronAuthorized: true, channel: "cron", userId: "ann", workspace: dir };
    const tar = await check(path, dir, { tool: "exec", args: { command: "tar -czf r.tgz r.md" }, ctx });
    expect(tar.decision).toMatchObject({ verdict: "allow", step: 4 });
    expect(tar.decision.reason).toContain("runs in the sandbox");
    const rm = await check(path, dir, { tool: "exec", args: { command: "rm -rf src" }, ctx });
    expect(rm.decision).toMatchObject({ verdict: "deny", step: 4 });
    expect(rm.decision.reason).toContain("the sandbox does not contain this");
    await writeFile(
      path,
      "security: {profile: personal_cli}\npermissions: {elevated: {allow_from: {cron: [ann]}}}\ntools: {exec: {host: local}}\n",
    );
    const local = await check(path, dir, { tool: "exec", args: { command: "tar -czf r.tgz r.md" }, ctx });
    expect(local.decision).toMatchObject({ verdict: "deny", step: 4 });
    expect(local.decision.reason).toContain("tar is not a safe bin");
  });

  // Probes from outside: a hidden hard command stays denied in the sandbox whatever
  // carries it; a computed command name is never covered by the grant; code run through an option
  // whose effect the sandbox holds is covered (the exec-host table's contained rows).
  it.each([
    ['x=/; rm -rf "$x"', "deny", 1],
    ['echo hi > /dev/sd""a', "deny", 1],
    ["ls /proc/1/root/etc/shadow", "deny", 1],
    ['cat<<<"$(reboot)"', "deny", 1],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    ["ls ${PATH:0:0}$(rm -rf /)", "deny", 1],
    ["tar -cf /dev/null . --checkpoint=1 --checkpoint-ac='exec=rm -rf /'", "deny", 1],
    ['find . -name x -execdir sh -c "rm -rf ~" \\;', "deny", 1],
    ['ls; eval "$(printf %s cm0gLXJmIC8= | base64 -d)"', "deny", 4],
    ["IFS=,; c=rm,-rf,/; $c", "deny", 4],
    ["sort --compress-prog=sh -S 1 x", "allow", 4],
  ])("an unattended cron run in the sandbox: %s → %s at step %i", async (command, verdict, step) => {
    const dir = await mkdtemp(join(tmpdir(), "echo-gate-probe-"));
    const path = join(dir, "echo.yaml");
    await writeFile(
      path,
      "security: {profile: personal_cli}\npermissions: {elevated: {allow_from: {cron: [ann]}}}\n",
    );
    const ctx = { unattended: true, cronAuthorized: true, channel: "cron", userId: "ann", workspace: dir };
    const { decision } = await check(path, dir, { tool: "exec", args: { command }, ctx });
    expect(decision).toMatchObject({ verdict, step });
  });
});
