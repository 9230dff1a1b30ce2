import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRunnerError, RunnerError } from "../shared/index.js";
import { loadConfig } from "./load.js";

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "echo-config-"));
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

/** Loads the built-in defaults + one project file (+ optional user file and env), no real HOME. */
async function load(project: string, options: { user?: string; env?: NodeJS.ProcessEnv } = {}) {
  const configPath = await tempFile("project.yaml", project);
  const userConfigPath = options.user === undefined ? null : await tempFile("user.yaml", options.user);
  return loadConfig({ configPath, userConfigPath, env: options.env ?? {} });
}

async function loadError(project: string, options: { user?: string; env?: NodeJS.ProcessEnv } = {}) {
  try {
    await load(project, options);
  } catch (err) {
    if (isRunnerError(err)) return err;
    throw err;
  }
  throw new Error("expected the config to be rejected");
}

describe("config validation rejects bad values and names what is wrong", () => {
  it.each([
    [
      "an unknown top-level key",
      "toolz:\n  deny: [exec]\n",
      "toolz",
      ["unknown key", "allowed keys here", "tools"],
    ],
    ["a typo in a deny key", "tools:\n  denyy: [exec]\n", "tools.denyy", ["unknown key", "deny"]],
    [
      "an invalid tool profile",
      "tools:\n  profile: everything\n",
      "tools.profile",
      ['"everything"', "minimal, messaging, coding, full"],
    ],
    [
      "an invalid security profile",
      "security:\n  profile: open\n",
      "security.profile",
      ["personal_cli, daemon, public_gateway"],
    ],
    [
      "an invalid network policy",
      "execution:\n  network_policy: some\n",
      "execution.network_policy",
      ["allow, restricted, deny"],
    ],
    [
      "a negative Redis outage wait",
      "execution:\n  redis_outage_seconds: -1\n",
      "execution.redis_outage_seconds",
      [">=0"],
    ],
    [
      "a Redis outage wait that is not a whole number",
      "execution:\n  redis_outage_seconds: 1.5\n",
      "execution.redis_outage_seconds",
      ["expected a whole number"],
    ],
    [
      "an invalid exec security",
      "tools:\n  exec:\n    security: yes-please\n",
      "tools.exec.security",
      ["full, allowlist, deny"],
    ],
    [
      "an invalid exec ask",
      "tools:\n  exec:\n    ask: sometimes\n",
      "tools.exec.ask",
      ["off, on-miss, always"],
    ],
    [
      "an invalid approval mode",
      "permissions:\n  approval:\n    mode: smrt\n",
      "permissions.approval.mode",
      ['"smrt"', "smart, off, strict"],
    ],
    [
      "an invalid unattended policy",
      "permissions:\n  approval:\n    unattended_policy: allow_all\n",
      "permissions.approval.unattended_policy",
      ["allow_safe, deny"],
    ],
    ["a deny list that is a string", "tools:\n  deny: exec\n", "tools.deny", ["expected a list"]],
    ["a deny list emptied with null", "tools:\n  deny:\n", "tools.deny", ["expected a list"]],
    [
      "a negative wait timeout",
      "permissions:\n  approval:\n    wait_timeout_seconds: -5\n",
      "permissions.approval.wait_timeout_seconds",
      ["-5"],
    ],
    [
      "a wait timeout that is text",
      "permissions:\n  approval:\n    wait_timeout_seconds: soon\n",
      "permissions.approval.wait_timeout_seconds",
      ["expected a number"],
    ],
    [
      "an allow-always TTL of zero days",
      "permissions:\n  approval:\n    allow_always_ttl_days: 0\n",
      "permissions.approval.allow_always_ttl_days",
      ["0"],
    ],
    [
      "an allow-always TTL over ten years",
      "permissions:\n  approval:\n    allow_always_ttl_days: 4000\n",
      "permissions.approval.allow_always_ttl_days",
      ["4000"],
    ],
    ["a port out of range", "http:\n  port: 70000\n", "http.port", ["70000"]],
    [
      "a trusted proxy that is not an address or CIDR",
      "http:\n  trust_proxy: [127.0.0.1, proxy.local]\n",
      "http.trust_proxy.1",
      ["proxy.local", "CIDR"],
    ],
    [
      "a public URL that is not http",
      "http:\n  public_url: ftp://example.com\n",
      "http.public_url",
      ["ftp://example.com"],
    ],
    [
      "a redis URL that is not redis",
      "redis:\n  url: http://localhost:6379\n",
      "redis.url",
      ["http://localhost:6379"],
    ],
    ["a literal SMTP password", "smtp:\n  password: hunter2\n", "smtp.password", ["password_env"]],
    [
      "an api_key_env that is not a variable name",
      "models:\n  m:\n    provider: openai\n    base_url: http://127.0.0.1:1/v1\n    model: x\n    api_key_env: 'sk-live 123'\n",
      "models.m.api_key_env",
      ["environment variable name"],
    ],
    [
      "an unknown model provider",
      "models:\n  m:\n    provider: magic\n",
      "models.m.provider",
      ["openai", "scripted"],
    ],
    [
      "an elevated allow_from that is a list",
      "permissions:\n  elevated:\n    allow_from: [user_1]\n",
      "permissions.elevated.allow_from",
      ["expected a mapping (name: value"],
    ],
    [
      "a cli_auto_approve that is text",
      "permissions:\n  approval:\n    cli_auto_approve: 'true'\n",
      "permissions.approval.cli_auto_approve",
      ["expected true or false"],
    ],
    [
      "a schedule with a bad overlap policy",
      "schedules:\n  - { id: s1, cron: '* * * * *', timezone: UTC, agent: a, overlap: sometimes, catch_up: latest, jitter_seconds: 0, enabled: true, owner: o, authorized: false }\n",
      "schedules.0.overlap",
      ["skip, queue, allow"],
    ],
    [
      "a schedule missing its owner",
      "schedules:\n  - { id: s1, cron: '* * * * *', timezone: UTC, agent: a, overlap: skip, catch_up: latest, jitter_seconds: 0, enabled: true, authorized: false }\n",
      "schedules.0.owner",
      ["missing"],
    ],
    [
      "an approver with a bad email",
      "approvers:\n  - { id: ann, email: not-an-email }\n",
      "approvers.0.email",
      ["not-an-email"],
    ],
    [
      "an invalid session mode",
      "execution:\n  session_mode: yolo\n",
      "execution.session_mode",
      ["full, workspace, guarded, read-only"],
    ],
    ["an invalid log level", "logging:\n  level: loud\n", "logging.level", ["trace, debug, info"]],
    [
      "an unknown key in a safe-bin profile",
      "tools:\n  exec:\n    safe_bins:\n      head:\n        allowed_flags: [-n]\n",
      "tools.exec.safe_bins.head.allowed_flags",
      ["value_flags", "denied_flags"],
    ],
    [
      "an unknown tool group",
      "tools:\n  deny: [exec, group:websurfing]\n",
      "tools.deny.1",
      ['"group:websurfing" is not a tool group', "group:fs", "group:web", "group:mcp:<server>"],
    ],
    [
      "a group of an MCP server that is not configured",
      "tools:\n  also_allow: [group:mcp:github]\n",
      "tools.also_allow.0",
      ['names MCP server "github", which is not in tools.mcp.servers', "group:runtime"],
    ],
  ])("rejects %s", async (_what, yaml, path, fragments) => {
    const err = await loadError(yaml);
    expect(err).toBeInstanceOf(RunnerError);
    expect(err.code).toBe("CONFIG_INVALID");
    const problems = err.data.problems as { path: string; message: string; origins: string[] }[];
    const problem = problems.find((p) => p.path === path);
    expect(problem, `no problem at ${path}: ${err.message}`).toBeDefined();
    for (const fragment of fragments) expect(`${problem?.path} ${problem?.message}`).toContain(fragment);
    expect(problem?.origins.some((o) => o.endsWith("project.yaml"))).toBe(true);
    expect(err.message).toContain(path);
  });

  it("lists every problem, not only the first", async () => {
    const err = await loadError("tools:\n  profile: x\n  deny: y\nsecurity:\n  profile: z\nbogus: 1\n");
    const paths = (err.data.problems as { path: string }[]).map((p) => p.path).sort();
    expect(paths).toEqual(["bogus", "security.profile", "tools.deny", "tools.profile"]);
  });

  it("rejects YAML syntax errors and duplicate keys with the file name", async () => {
    const dup = await loadError("tools:\n  deny: [exec]\n  deny: []\n");
    expect(dup.code).toBe("CONFIG_INVALID");
    expect(dup.message).toMatch(/project\.yaml/);
    expect(dup.message).toMatch(/unique|duplicate/i);
    const syntax = await loadError("tools: [unclosed\n");
    expect(syntax.code).toBe("CONFIG_INVALID");
  });

  it("rejects a top level that is not a mapping", async () => {
    const err = await loadError("- just\n- a list\n");
    expect(err.message).toContain("mapping");
  });

  it("fails when an explicitly named config file does not exist", async () => {
    const err = await loadConfig({
      configPath: "/nonexistent/echo.yaml",
      userConfigPath: null,
      env: {},
    }).catch((e: unknown) => e);
    expect(isRunnerError(err, "CONFIG_FILE_UNREADABLE")).toBe(true);
    // In words, with where the path came from: not a bare errno code.
    expect((err as Error).message).toContain("no such file");
    expect((err as Error).message).toContain("--config");
  });

  it("rejects an environment override that names no key, naming the variable's source", async () => {
    const err = await loadError("", { env: { ECHO_RUNNER_TOOLS__DENYY: "[exec]" } });
    const problem = (err.data.problems as { path: string; origins: string[] }[])[0];
    expect(problem?.path).toBe("tools.denyy");
    expect(problem?.origins).toEqual(["environment"]);
  });

  it("loads an anthropic model with context window, output limit and price, and agent and schedule budgets", async () => {
    const { config } = await load(
      [
        "models:",
        "  claude: { provider: anthropic, base_url: https://api.anthropic.com, model: claude-x, api_key_env: ANTHROPIC_API_KEY,",
        "            context_window: 200000, max_output_tokens: 4096, price: { input: 3, output: 15, cached_input: 0.3 } }",
        "agents:",
        "  a: { model: claude, task: t, workspace: /tmp, context_budget: 60000, max_cost_usd: 2, max_wall_seconds: 600,",
        "       max_input_tokens: 100000, max_output_tokens: 5000, live_output_chars: { exec: 4000 } }",
        "schedules:",
        "  - { id: s, cron: '0 2 * * *', timezone: UTC, agent: a, overlap: skip, catch_up: none, jitter_seconds: 0,",
        "      enabled: true, owner: ann, authorized: false, max_daily_cost_usd: 5 }",
      ].join("\n"),
    );
    expect(config.models.claude).toMatchObject({ provider: "anthropic", price: { cached_input: 0.3 } });
    expect(config.agents.a).toMatchObject({ context_budget: 60000, max_cost_usd: 2 });
    expect(config.schedules[0]).toMatchObject({ max_daily_cost_usd: 5 });
  });

  it.each([
    [
      "a negative price",
      "models:\n  m: { provider: scripted, script: s.yaml, price: { input: -1, output: 1 } }\n",
      "models.m.price.input",
    ],
    [
      "a context budget under 1000 tokens",
      "agents:\n  a: { model: m, task: t, workspace: /tmp, context_budget: 10 }\n",
      "agents.a.context_budget",
    ],
    [
      "an unknown budget key",
      "agents:\n  a: { model: m, task: t, workspace: /tmp, max_cost: 1 }\n",
      "agents.a.max_cost",
    ],
    [
      "a model provider that does not exist",
      "models:\n  m: { provider: gemini, script: s }\n",
      "models.m.provider",
    ],
  ])("rejects %s, naming the key", async (_what, yaml, path) => {
    const err = await loadError(yaml);
    expect(err.message).toContain(path);
  });

  it("loads the built-in defaults alone, deep-frozen", async () => {
    const { config } = await loadConfig({ userConfigPath: null, env: {}, cwd: tmpdir() });
    expect(config.security.profile).toBe("daemon");
    expect(Object.isFrozen(config.tools.deny)).toBe(true);
    expect(() => (config.tools.deny as string[]).push("x")).toThrow();
  });
});

describe("config sources merge so that no source can loosen another", () => {
  it("unions deny lists across project, user and environment", async () => {
    const { config, origins } = await load("tools:\n  deny: [exec]\n", {
      user: "tools:\n  deny: [process]\n",
      env: { ECHO_RUNNER_TOOLS__DENY: "[cronjob]" },
    });
    expect([...config.tools.deny].sort()).toEqual(["cronjob", "exec", "process"]);
    expect(origins.get("tools.deny")).toHaveLength(4);
    expect(origins.get("tools.deny")).toContain("environment");
  });

  it("keeps a project deny even when the user file allows the same tool", async () => {
    const { config } = await load("tools:\n  deny: [exec]\n", {
      user: "tools:\n  deny: []\n  allow: [exec]\n",
    });
    expect(config.tools.deny).toContain("exec");
    expect(config.tools.allow).toContain("exec");
  });

  it.each([
    [
      "security.profile",
      "security:\n  profile: public_gateway\n",
      "security:\n  profile: personal_cli\n",
      "public_gateway",
    ],
    ["security.profile", "security:\n  profile: personal_cli\n", "security:\n  profile: daemon\n", "daemon"],
    [
      "execution.network_policy",
      "execution:\n  network_policy: deny\n",
      "execution:\n  network_policy: allow\n",
      "deny",
    ],
    [
      "execution.network_policy",
      "execution:\n  network_policy: allow\n",
      "execution:\n  network_policy: restricted\n",
      "restricted",
    ],
    [
      "permissions.approval.unattended_policy",
      "permissions:\n  approval:\n    unattended_policy: deny\n",
      "permissions:\n  approval:\n    unattended_policy: allow_safe\n",
      "deny",
    ],
    [
      "permissions.approval.mode",
      "permissions:\n  approval:\n    mode: off\n",
      "permissions:\n  approval:\n    mode: smart\n",
      "off",
    ],
    [
      "permissions.approval.mode",
      "permissions:\n  approval:\n    mode: smart\n",
      "permissions:\n  approval:\n    mode: strict\n",
      "strict",
    ],
    [
      "tools.exec.security",
      "tools:\n  exec:\n    security: allowlist\n",
      "tools:\n  exec:\n    security: full\n",
      "allowlist",
    ],
    [
      "tools.exec.security",
      "tools:\n  exec:\n    security: full\n",
      "tools:\n  exec:\n    security: deny\n",
      "deny",
    ],
    ["tools.exec.ask", "tools:\n  exec:\n    ask: always\n", "tools:\n  exec:\n    ask: off\n", "always"],
    ["tools.exec.ask", "tools:\n  exec:\n    ask: off\n", "tools:\n  exec:\n    ask: on-miss\n", "on-miss"],
  ])("takes the strictest %s whichever source sets it", async (path, project, user, expected) => {
    const forward = await load(project, { user });
    const backward = await load(user, { user: project });
    const read = (c: unknown) =>
      path.split(".").reduce((node: unknown, key) => (node as Record<string, unknown>)[key], c);
    expect(read(forward.config)).toBe(expected);
    expect(read(backward.config)).toBe(expected);
  });

  it("lets a project file loosen a built-in default (defaults are not a source of strictness)", async () => {
    const { config } = await load("security:\n  profile: personal_cli\n");
    expect(config.security.profile).toBe("personal_cli");
  });

  it("lets an environment override tighten but never loosen a security-ordered key", async () => {
    const tightened = await load("security:\n  profile: personal_cli\n", {
      env: { ECHO_RUNNER_SECURITY__PROFILE: "daemon" },
    });
    expect(tightened.config.security.profile).toBe("daemon");
    const loosened = await load("security:\n  profile: daemon\n", {
      env: { ECHO_RUNNER_SECURITY__PROFILE: "personal_cli" },
    });
    expect(loosened.config.security.profile).toBe("daemon");
  });

  it("never skips an invalid value in a security-ordered key, even if another source is valid", async () => {
    const err = await loadError("security:\n  profile: daemon\n", {
      user: "security:\n  profile: wide-open\n",
    });
    const problem = (err.data.problems as { path: string; origins: string[] }[]).find(
      (p) => p.path === "security.profile",
    );
    expect(problem?.origins[0]).toMatch(/user\.yaml$/);
  });

  it("applies ordinary keys with later sources winning: defaults < project < user < env", async () => {
    const a = await load("http:\n  port: 9001\n");
    expect(a.config.http.port).toBe(9001);
    const b = await load("http:\n  port: 9001\n", { user: "http:\n  port: 9002\n" });
    expect(b.config.http.port).toBe(9002);
    const c = await load("http:\n  port: 9001\n", {
      user: "http:\n  port: 9002\n",
      env: { ECHO_RUNNER_HTTP__PORT: "9003" },
    });
    expect(c.config.http.port).toBe(9003);
    expect(c.origins.get("http.port")).toEqual(["environment"]);
  });

  it("points approval links at the port and host the server listens on unless public_url is set", async () => {
    const byEnv = await load("", { env: { ECHO_RUNNER_HTTP__PORT: "9000" } });
    expect(byEnv.config.http.public_url).toBe("http://127.0.0.1:9000");
    expect(byEnv.origins.get("http.public_url")).toEqual(["environment"]);
    const wildcard = await load("http:\n  host: 0.0.0.0\n  port: 9100\n");
    expect(wildcard.config.http.public_url).toBe("http://127.0.0.1:9100");
    const any = await load("http:\n  port: 0\n");
    expect(any.config.http.public_url).toBe("http://127.0.0.1:0");
    const v6 = await load("http:\n  host: '::1'\n");
    expect(v6.config.http.public_url).toBe("http://[::1]:8787");
    const set = await load("http:\n  public_url: https://runner.example.com\n", {
      env: { ECHO_RUNNER_HTTP__PORT: "9000" },
    });
    expect(set.config.http.public_url).toBe("https://runner.example.com");
    const defaults = await load("");
    expect(defaults.config.http.public_url).toBe("http://127.0.0.1:8787");
  });

  it("does not read secret variables named by *_env keys as overrides", async () => {
    const { config } = await load("", { env: { ECHO_RUNNER_API_TOKEN: "tok", ECHO_RUNNER_CONFIG: "" } });
    expect(config.http.api_token_env).toBe("ECHO_RUNNER_API_TOKEN");
  });
});
