import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { TOOL_PROFILES } from "../../src/catalog/index.js";
import {
  type ConfigSource,
  DEFAULT_CONFIG_PATH,
  EXEC_HOSTS,
  envOverrideSource,
  IN_DOUBT_POLICIES,
  LOG_FORMATS,
  LOG_LEVELS,
  type LoadedConfig,
  parseYamlConfig,
  SECURITY_ORDERED_KEYS,
  validateSources,
} from "../../src/config/index.js";
import { EXEC_MODE_BY_PERMISSION_MODE, SESSION_PERMISSION_MODES } from "../../src/policy/index.js";
import {
  effectiveSessionMode,
  gateConfigFromConfig,
  policyInputFromConfig,
} from "../../src/runtime/index.js";
import { isRunnerError } from "../../src/shared/index.js";
import { iterations, pick, prng, suiteSeed } from "./seeded.js";

/**
 * Config fuzzing: random mutations of valid configs (the built-in defaults plus one of a few
 * realistic project files, a user file and environment overrides) — other allowed values,
 * out-of-set values, wrong types, typo keys, nested junk, prototype keys — in any source. Each
 * mutated config is either rejected with CONFIG_INVALID naming the key path and its source, or it
 * loads; when it loads, every security-ordered key is the strictest value any non-default source
 * set (the default only when none did), tools.deny is the union of every source's list, and the
 * gate and policy inputs built from it carry exactly those values.
 * CONFIG_FUZZ_ITERATIONS cases (default 2,000); SECURITY_SEED replays a run.
 */

const N = iterations("CONFIG_FUZZ_ITERATIONS", 2000);
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();

type Data = Record<string, unknown>;
const isObject = (v: unknown): v is Data => v !== null && typeof v === "object" && !Array.isArray(v);

const DEFAULTS: Data = parseYamlConfig(readFileSync(DEFAULT_CONFIG_PATH, "utf8"), DEFAULT_CONFIG_PATH);

/** Realistic project files: a nightly cron agent, a personal CLI setup, a public gateway. */
const PROJECTS: Record<string, string> = {
  "nightly.yaml": `
tools:
  profile: coding
  deny: [process, skill_install]
  exec:
    security: allowlist
    ask: on-miss
permissions:
  approval:
    unattended_policy: deny
    mode: smart
    smart_model: reviewer
    wait_timeout_seconds: 28800
    wait_timeout_by_channel: { cron: 43200 }
    forbid_self_approval: true
  elevated:
    enabled: true
    allow_from: { cron: [scheduler] }
approvers:
  - { id: alice, email: alice@example.test }
  - { id: bob, email: bob@example.test }
models:
  main: { provider: openai, base_url: "https://llm.example.test/v1", model: big, api_key_env: LLM_KEY }
  reviewer: { provider: openai, base_url: "https://llm.example.test/v1", model: small, api_key_env: LLM_KEY }
agents:
  nightly:
    model: main
    task: "Run the test suite and summarise failures"
    workspace: /srv/repo
    allowed_tools: [exec, read_file, write_file]
    session_mode: guarded
schedules:
  - id: nightly-tests
    cron: "0 2 * * *"
    timezone: Europe/Berlin
    agent: nightly
    overlap: skip
    catch_up: latest
    jitter_seconds: 60
    enabled: true
    owner: alice
    authorized: false
smtp:
  host: mail.example.test
  port: 587
  from: runner@example.test
http:
  public_url: "https://runner.example.test"
`,
  "personal.yaml": `
security:
  profile: personal_cli
execution:
  network_policy: allow
  session_mode: full
tools:
  exec:
    security: full
    ask: off
permissions:
  approval:
    cli_auto_approve: true
    auto_approve: [read_file, list_dir]
    trusted_channels: [cli]
    unattended_policy: allow_safe
  admin_users: [me]
operator: me
`,
  "gateway.yaml": `
security:
  profile: public_gateway
execution:
  network_policy: restricted
  allowed_hosts: [api.example.test, "*.docs.example.test"]
  session_mode: read-only
  worker_concurrency: 16
tools:
  profile: messaging
  deny: [exec, execute_code, process, write_file]
  exec:
    security: deny
    ask: always
permissions:
  approval:
    mode: strict
    required_approvals: { dangerous: 2, exec: 2 }
approvers: # two people: two approvals of one approver can only expire (config check refuses it)
  - { id: ops, email: ops@example.test }
  - { id: sec, email: sec@example.test }
logging:
  level: warn
  format: json
`,
};

/** Keys with a closed set of values (security-ordered ones first). */
const ENUM_KEYS: Record<string, readonly string[]> = {
  ...SECURITY_ORDERED_KEYS,
  "tools.profile": TOOL_PROFILES,
  "tools.exec.host": EXEC_HOSTS,
  "execution.in_doubt_policy": IN_DOUBT_POLICIES,
  "logging.level": LOG_LEVELS,
  "logging.format": LOG_FORMATS,
};
const SECURITY_KEYS = Object.keys(SECURITY_ORDERED_KEYS);

/** Every leaf path of the defaults (an empty mapping is a record, a leaf); and the strict objects. */
const LEAVES: string[] = [];
const STRICT_OBJECTS: string[] = [""];
(function walk(node: Data, prefix: string) {
  for (const [key, value] of Object.entries(node)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isObject(value) && Object.keys(value).length > 0) {
      STRICT_OBJECTS.push(path);
      walk(value, path);
    } else LEAVES.push(path);
  }
})(DEFAULTS, "");
const ENUM_PATHS = Object.keys(ENUM_KEYS).filter((p) => LEAVES.includes(p));

function getOwn(data: unknown, path: string): { found: boolean; value: unknown } {
  let node = data;
  for (const segment of path === "" ? [] : path.split(".")) {
    if (!isObject(node) || !Object.hasOwn(node, segment)) return { found: false, value: undefined };
    node = node[segment];
  }
  return { found: true, value: node };
}

function setOwn(data: Data, path: string, value: unknown): void {
  const segments = path.split(".");
  let node = data;
  for (const segment of segments.slice(0, -1)) {
    if (!Object.hasOwn(node, segment) || !isObject(node[segment])) {
      Object.defineProperty(node, segment, {
        value: {},
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    node = node[segment] as Data;
  }
  Object.defineProperty(node, segments[segments.length - 1] as string, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function deleteOwn(data: Data, path: string): void {
  const segments = path.split(".");
  const parent = getOwn(data, segments.slice(0, -1).join("."));
  if (isObject(parent.value)) delete parent.value[segments[segments.length - 1] as string];
}

/** Same path, or one inside the other. */
const related = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);

const typeClass = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** One mutation, and what it must lead to. */
interface Mutation {
  kind: string;
  path: string;
  source: "project" | "user" | "env";
  /** invalid: must be rejected naming `path` (unless a later source replaces it). */
  expect: "valid" | "invalid" | "either";
  value: unknown;
  /** typo-key: the path of the key that was misspelt. */
  original?: string;
}

/** A typo of `key` that is not one of `allowed` (and fits an environment variable when `envSafe`). */
function typo(rand: () => number, key: string, allowed: readonly string[], envSafe: boolean): string {
  for (;;) {
    const i = Math.floor(rand() * key.length);
    const letter = pick(rand, [..."abcdefghijklmnopqrstuvwxyz"]);
    const candidates = [
      `${key}${letter}`,
      key.slice(0, i) + key.slice(i + 1),
      key.slice(0, i) + letter + key.slice(i + 1),
      key.replace(/_/g, "-"),
      key.replace(/_/g, ""),
      ...(envSafe ? [] : [key.toUpperCase(), `${key} `, `${key[0]?.toUpperCase()}${key.slice(1)}`]),
    ];
    const t = pick(rand, candidates);
    const ok = envSafe ? /^[a-z0-9]+(_[a-z0-9]+)*$/.test(t) : t.length > 0;
    if (ok && !allowed.includes(t)) return t;
  }
}

const JUNK_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "extra", "x-y"];

function randomMutation(rand: () => number, sources: readonly Mutation["source"][]): Mutation {
  const source = pick(rand, sources);
  const kind = pick(rand, [
    "allowed",
    "allowed",
    "out-of-set",
    "wrong-type",
    "typo-key",
    "junk",
    "deny-list",
  ]);
  switch (kind) {
    case "allowed": {
      const path = pick(rand, ENUM_PATHS);
      return { kind, path, source, expect: "valid", value: pick(rand, ENUM_KEYS[path] ?? []) };
    }
    case "out-of-set": {
      const path = pick(rand, ENUM_PATHS);
      const allowed = ENUM_KEYS[path] ?? [];
      const base = pick(rand, allowed);
      const candidates = [`${base}x`, base.toUpperCase(), `${base} `, "", "none", "*", "allow-all", "off "];
      const value = pick(
        rand,
        candidates.filter((c) => !allowed.includes(c)),
      );
      return { kind, path, source, expect: "invalid", value };
    }
    case "wrong-type": {
      const path = pick(rand, LEAVES);
      const current = getOwn(DEFAULTS, path).value;
      const options: unknown[] = [42, -1, 1.5, true, "text", [1, "a"], { a: { b: 1 } }];
      if (source !== "env") options.push(null);
      const value = pick(
        rand,
        options.filter((o) => typeClass(o) !== typeClass(current)),
      );
      return { kind, path, source, expect: "invalid", value };
    }
    case "typo-key": {
      const parent = pick(rand, STRICT_OBJECTS);
      const siblings = Object.keys(
        isObject(getOwn(DEFAULTS, parent).value) ? (getOwn(DEFAULTS, parent).value as Data) : {},
      );
      const original = pick(rand, siblings);
      const key = typo(rand, original, siblings, source === "env");
      const path = parent ? `${parent}.${key}` : key;
      const originalPath = parent ? `${parent}.${original}` : original;
      return {
        kind,
        path,
        source,
        expect: "invalid",
        value: getOwn(DEFAULTS, originalPath).value,
        original: originalPath,
      };
    }
    case "junk": {
      const parent = pick(rand, STRICT_OBJECTS);
      const key = source === "env" ? "extra" : pick(rand, JUNK_KEYS);
      const path = parent ? `${parent}.${key}` : key;
      return {
        kind,
        path,
        source,
        expect: "invalid",
        value: pick(rand, [{ x: [1, { y: 2 }] }, { mode: "smart" }, 7]),
      };
    }
    default: {
      // A deny list in one more source: valid, and must end up in the union.
      const value = ["exec", "process", "web_fetch", "write_file", "cronjob"].filter(() => rand() < 0.4);
      return { kind: "deny-list", path: "tools.deny", source, expect: "valid", value };
    }
  }
}

/** The environment variable and YAML text that set `path` to `value`. */
function envEntry(path: string, value: unknown): [string, string] {
  const name = `ECHO_RUNNER_${path.split(".").join("__").toUpperCase()}`;
  return [name, stringify(value, { collectionStyle: "flow" }).trim()];
}

/** A case: defaults, a project file, maybe a user file, environment overrides, and the mutations. */
function randomCase(rand: () => number) {
  const projectName = pick(rand, Object.keys(PROJECTS));
  const project = parseYamlConfig(PROJECTS[projectName] as string, projectName);
  const user: Data | undefined = rand() < 0.6 ? {} : undefined;
  const env: Record<string, string> = {};
  const names: Mutation["source"][] = user ? ["project", "user", "env"] : ["project", "env"];
  // Security-ordered keys set in several sources, to exercise the strictest-wins rule.
  for (const key of SECURITY_KEYS) {
    for (const source of names) {
      if (rand() > 0.25) continue;
      const value = pick(rand, SECURITY_ORDERED_KEYS[key as keyof typeof SECURITY_ORDERED_KEYS]);
      if (source === "env") env[envEntry(key, value)[0]] = envEntry(key, value)[1];
      else setOwn(source === "project" ? project : (user as Data), key, value);
    }
  }
  const mutations: Mutation[] = [];
  const count = rand() < 0.15 ? 0 : 1 + Math.floor(rand() * 3);
  for (let i = 0; i < count; i++) {
    const m = randomMutation(rand, names);
    if (m.original !== undefined && m.source !== "env" && rand() < 0.3) {
      // Sometimes the typo replaces the key in that source (the value moves to the misspelt key).
      deleteOwn(m.source === "project" ? project : (user as Data), m.original);
      for (let j = mutations.length - 1; j >= 0; j--) {
        const earlier = mutations[j] as Mutation;
        if (earlier.source === m.source && related(earlier.path, m.original)) mutations.splice(j, 1);
      }
    }
    // A later write to the same key (or one inside or around it) in the same source replaces the earlier one.
    for (let j = mutations.length - 1; j >= 0; j--) {
      const earlier = mutations[j] as Mutation;
      if (earlier.source === m.source && related(earlier.path, m.path)) mutations.splice(j, 1);
    }
    if (m.source === "env") {
      const [name, text] = envEntry(m.path, m.value);
      env[name] = text;
    } else setOwn(m.source === "project" ? project : (user as Data), m.path, m.value);
    mutations.push(m);
  }
  const sources: ConfigSource[] = [
    { kind: "default", origin: DEFAULT_CONFIG_PATH, data: DEFAULTS },
    { kind: "project", origin: projectName, data: project },
    ...(user ? [{ kind: "user" as const, origin: "user.yaml", data: user }] : []),
  ];
  return { sources, env, mutations };
}

/** Every data source of a case, env included (built the way loadConfig builds it). */
function allSources(c: ReturnType<typeof randomCase>): ConfigSource[] {
  return [...c.sources, envOverrideSource(c.env, new Set())];
}

const originOf = (source: Mutation["source"], c: ReturnType<typeof randomCase>) =>
  source === "env" ? "environment" : (c.sources.find((s) => s.kind === source)?.origin ?? "?");

/** Whether a later source replaces what `m` wrote (only for keys merged later-wins). */
function masked(m: Mutation, sources: readonly ConfigSource[], c: ReturnType<typeof randomCase>): boolean {
  if (m.path in SECURITY_ORDERED_KEYS || m.path === "tools.deny") return false;
  const index = sources.findIndex((s) => s.origin === originOf(m.source, c));
  const segments = m.path.split(".");
  return sources.slice(index + 1).some((s) => {
    if (getOwn(s.data, m.path).found) return true;
    for (let i = 1; i < segments.length; i++) {
      const ancestor = getOwn(s.data, segments.slice(0, i).join("."));
      if (ancestor.found && !isObject(ancestor.value)) return true;
    }
    // A later mapping under a scalar we wrote replaces it.
    return !isObject(m.value) && isObject(getOwn(s.data, m.path).value);
  });
}

function checkLoaded(loaded: LoadedConfig, sources: readonly ConfigSource[], where: string): void {
  const config = loaded.config as unknown as Data;
  for (const [key, order] of Object.entries(SECURITY_ORDERED_KEYS) as [string, readonly string[]][]) {
    const effective = getOwn(config, key).value as string;
    const set = sources.filter((s) => s.kind !== "default").map((s) => getOwn(s.data, key));
    const values = set.filter((e) => e.found).map((e) => e.value as string);
    const expected =
      values.length === 0
        ? (getOwn(DEFAULTS, key).value as string)
        : values.reduce((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a));
    expect(effective, `${where}: ${key} (sources set ${JSON.stringify(values)})`).toBe(expected);
  }
  const union = new Set<unknown>();
  for (const s of sources) {
    const deny = getOwn(s.data, "tools.deny");
    if (deny.found) for (const tool of deny.value as unknown[]) union.add(tool);
  }
  const deny = loaded.config.tools.deny;
  expect(new Set(deny), `${where}: tools.deny is the union`).toEqual(union);
  expect(deny.length, `${where}: tools.deny without duplicates`).toBe(union.size);

  // What the runtime builds from the config carries the same values: nothing loosens on the way.
  const sessionMode = effectiveSessionMode(loaded.config);
  expect(sessionMode, where).toBe(loaded.config.execution.session_mode);
  for (const requested of SESSION_PERMISSION_MODES) {
    const mode = effectiveSessionMode(loaded.config, requested);
    expect(
      SESSION_PERMISSION_MODES.indexOf(mode),
      `${where}: a job asking ${requested}`,
    ).toBeGreaterThanOrEqual(SESSION_PERMISSION_MODES.indexOf(sessionMode));
  }
  const gate = gateConfigFromConfig(loaded.config, sessionMode);
  const approval = loaded.config.permissions.approval;
  expect(
    [gate.mode, gate.unattendedPolicy, gate.execSecurity, gate.execAsk, gate.sessionExecMode],
    where,
  ).toEqual([
    approval.mode,
    approval.unattended_policy,
    loaded.config.tools.exec.security,
    loaded.config.tools.exec.ask,
    EXEC_MODE_BY_PERMISSION_MODE[sessionMode],
  ]);
  const policy = policyInputFromConfig(loaded.config, { tools: [] });
  expect([policy.securityProfile, policy.networkPolicy, policy.sessionMode], where).toEqual([
    loaded.config.security.profile,
    loaded.config.execution.network_policy,
    sessionMode,
  ]);
  expect(new Set(policy.lists.flatMap((l) => [...(l.deny ?? [])])), `${where}: policy deny`).toEqual(union);
}

describe(`config fuzzing, ${N} mutated configs`, () => {
  it("the realistic project files load on their own", () => {
    for (const [name, text] of Object.entries(PROJECTS)) {
      const sources: ConfigSource[] = [
        { kind: "default", origin: DEFAULT_CONFIG_PATH, data: DEFAULTS },
        { kind: "project", origin: name, data: parseYamlConfig(text, name) },
      ];
      checkLoaded(validateSources(sources), sources, name);
    }
  });

  it("rejects a mutation naming the key path and its source, or loads no looser than the strictest source", () => {
    const seed = suiteSeed("config-fuzz", 0xc0f19);
    const rand = prng(seed);
    const outcomes = { loaded: 0, rejected: 0, invalidMutations: 0 };
    for (let i = 0; i < N; i++) {
      const c = randomCase(rand);
      const sources = allSources(c);
      const where = `seed ${seed} case ${i} (${c.sources[1]?.origin}; mutations ${JSON.stringify(c.mutations)}; env ${JSON.stringify(c.env)})`;
      const mustReject = c.mutations.filter((m) => m.expect === "invalid" && !masked(m, sources, c));
      const mayReject = c.mutations.filter((m) => m.expect !== "valid");
      let loaded: LoadedConfig | undefined;
      let problems: { path: string; message: string; origins: readonly string[] }[] = [];
      let message = "";
      try {
        loaded = validateSources(sources);
      } catch (err) {
        if (!isRunnerError(err) || err.code !== "CONFIG_INVALID")
          throw new Error(`${where}: threw ${String(err)}`);
        problems = (err.data as { problems: typeof problems }).problems;
        message = err.message;
      }
      expect(Object.getOwnPropertyNames(Object.prototype).sort(), `${where}: Object.prototype`).toEqual(
        PROTOTYPE_NAMES,
      );
      if (loaded) {
        outcomes.loaded++;
        expect(mustReject, `${where}: loaded although these must be rejected`).toEqual([]);
        checkLoaded(loaded, sources, where);
        continue;
      }
      outcomes.rejected++;
      expect(
        mayReject.length,
        `${where}: rejected a config with only valid mutations:\n${message}`,
      ).toBeGreaterThan(0);
      expect(problems.length, where).toBeGreaterThan(0);
      for (const p of problems) {
        expect(message, where).toContain(p.path);
        // Every problem traces back to a mutation (the base configs are valid).
        expect(
          mayReject.some((m) => related(p.path, m.path)),
          `${where}: problem ${JSON.stringify(p)} matches no mutation`,
        ).toBe(true);
      }
      for (const m of mustReject) {
        outcomes.invalidMutations++;
        const named = problems.find((p) => related(p.path, m.path));
        expect(named, `${where}: no problem names ${m.path}:\n${message}`).toBeDefined();
        if (!(m.path in SECURITY_ORDERED_KEYS) && m.path !== "tools.deny" && named?.path === m.path) {
          // Security-ordered and union keys report the first bad source; others the one that set it.
          expect(named.origins, `${where}: ${m.path} names its source`).toContain(originOf(m.source, c));
        }
      }
    }
    // The generator reaches both outcomes often enough to mean something.
    expect(outcomes.loaded, JSON.stringify(outcomes)).toBeGreaterThan(N * 0.15);
    expect(outcomes.rejected, JSON.stringify(outcomes)).toBeGreaterThan(N * 0.3);
  });
});
