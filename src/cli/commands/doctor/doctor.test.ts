import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { freePort } from "../../../../test/helpers/free-port.js";
import { RedisServerProcess } from "../../../../test/helpers/redis-server.js";
import { type SmtpCapture, startSmtpCapture } from "../../../../test/helpers/smtp-capture.js";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";
import type { DoctorReport } from "./doctor.js";
import type { DoctorCheck } from "./doctor-check.js";

let dir: string;
let good: RedisServerProcess;
let smtp: SmtpCapture;
let n = 0;

/** A production-like config: real SMTP, a public https URL, approvers with email. */
function healthy(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    redis: { url: good.url, key_prefix: "doctor" },
    http: { public_url: "https://runner.example.test" },
    smtp: { host: smtp.host, port: smtp.port, from: "runner@example.test" },
    approvers: [{ id: "alice", email: "alice@example.test" }],
    ...overrides,
  };
}

async function doctor(config: Record<string, unknown> | string, env: NodeJS.ProcessEnv = {}) {
  n += 1;
  const path = join(dir, `echo-${n}.yaml`);
  await writeFile(path, typeof config === "string" ? config : stringify(config));
  const out = bufferIo("", { HOME: dir, ...env }, dir);
  const code = await runCli(["doctor", "--json", "--timeout", "3", "--config", path], out.io);
  const report = JSON.parse(out.stdout()) as DoctorReport;
  const check = (name: string): DoctorCheck | undefined => report.checks.find((c) => c.name === name);
  return { code, report, check, stderr: out.stderr() };
}

/** A redis-server of its own, so a test may break its settings. */
async function throwawayRedis(): Promise<{ server: RedisServerProcess; admin: Redis }> {
  const server = await RedisServerProcess.start();
  const admin = new Redis(server.url, { maxRetriesPerRequest: 1 });
  return { server, admin };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-doctor-"));
  [good, smtp] = await Promise.all([RedisServerProcess.start({ appendfsync: "always" }), startSmtpCapture()]);
  const admin = new Redis(good.url, { maxRetriesPerRequest: 1 });
  await admin.config("SET", "hash-max-listpack-value", "1024");
  admin.disconnect();
}, 30_000);

afterAll(async () => {
  await Promise.all([good?.stop(), smtp?.close()]);
});

describe("echo-runner doctor", () => {
  it("passes a healthy setup: config, Redis with AOF and noeviction, SMTP answering EHLO, public https URL", async () => {
    const { code, report, check } = await doctor(healthy());
    expect(report.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(check("config")?.status).toBe("ok");
    expect(check("redis")).toMatchObject({ status: "ok", reason: expect.stringContaining(good.url) });
    expect(check("redis.version")).toMatchObject({
      status: "ok",
      reason: expect.stringMatching(/^Redis \d+\./),
    });
    expect(check("redis.persistence")).toMatchObject({
      status: "ok",
      reason: "AOF on (appendfsync always)",
    });
    expect(check("redis.eviction")).toMatchObject({ status: "ok", reason: "maxmemory-policy noeviction" });
    expect(check("redis.memory")).toMatchObject({ status: "ok", reason: "hash-max-listpack-value 1024" });
    expect(check("smtp")).toMatchObject({ status: "ok", reason: `${smtp.host}:${smtp.port} answered EHLO` });
    expect(check("http.public_url")?.status).toBe("ok");
    expect(check("tool:read_file")).toMatchObject({ status: "ok", reason: "ready" });
    // The shell exec-class tools run commands with: bash's path and version (never /bin/sh).
    expect(check("shell")).toMatchObject({
      status: "ok",
      reason: expect.stringMatching(
        /^bash \/\S*\/bash \(GNU bash \d+\.\d+.*\), started with --noprofile --norc$/,
      ),
    });
  });

  it("says mails go to the log when no SMTP is configured, and accepts a loopback public URL then", async () => {
    const { code, check } = await doctor({
      redis: { url: good.url, key_prefix: "doctor" },
      http: { public_url: "http://127.0.0.1:8787" },
    });
    expect(code).toBe(0);
    expect(check("smtp")).toMatchObject({ status: "ok", reason: "not configured: mails go to the log" });
    expect(check("http.public_url")?.status).toBe("ok");
  });

  it("warns (and still passes) when Redis keeps the default 64-byte listpack limit for hashes", async () => {
    const { server, admin } = await throwawayRedis();
    try {
      expect(await admin.config("GET", "hash-max-listpack-value")).toEqual(["hash-max-listpack-value", "64"]);
      const { code, check } = await doctor(healthy({ redis: { url: server.url, key_prefix: "doctor" } }));
      expect(code).toBe(0);
      expect(check("redis.memory")).toMatchObject({
        status: "warn",
        reason: expect.stringContaining("hash-max-listpack-value is 64"),
        fix: expect.stringContaining("CONFIG SET hash-max-listpack-value 1024"),
      });
    } finally {
      admin.disconnect();
      await server.stop();
    }
  });

  it("fails when Redis is unreachable (a closed port), naming the address and how to start one", async () => {
    const closed = `redis://127.0.0.1:${await freePort()}`;
    const { code, report, check } = await doctor(healthy(), { REDIS_URL: closed });
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(check("redis")).toMatchObject({
      status: "fail",
      reason: expect.stringContaining(`cannot reach Redis at ${closed}`),
      fix: expect.stringContaining("echo-runner start"),
    });
    expect(check("redis.version")).toBeUndefined();
    expect(check("redis.persistence")).toBeUndefined();
  });

  it("warns that appendfsync everysec can lose the last second of acknowledged writes in a machine crash", async () => {
    const { server, admin } = await throwawayRedis();
    try {
      await admin.config("SET", "appendfsync", "everysec");
      const result = await doctor(healthy({ redis: { url: server.url, key_prefix: "doctor" } }));
      expect(result.check("redis.persistence")).toMatchObject({
        status: "warn",
        reason: expect.stringContaining(
          "a machine crash can lose about the last second of acknowledged writes",
        ),
        fix: expect.stringContaining("appendfsync always"),
      });
      expect(result.code).toBe(0);
    } finally {
      admin.disconnect();
      await server.stop();
    }
  });

  it("fails a Redis without persistence (no AOF, no RDB) and warns when only RDB snapshots are on", async () => {
    const { server, admin } = await throwawayRedis();
    try {
      await admin.config("SET", "appendonly", "no");
      const none = await doctor(healthy({ redis: { url: server.url, key_prefix: "doctor" } }));
      expect(none.code).toBe(1);
      expect(none.check("redis.persistence")).toMatchObject({
        status: "fail",
        reason: expect.stringContaining("neither AOF nor RDB"),
        fix: expect.stringContaining("appendonly yes"),
      });
      await admin.config("SET", "save", "3600 1");
      const rdb = await doctor(healthy({ redis: { url: server.url, key_prefix: "doctor" } }));
      expect(rdb.check("redis.persistence")).toMatchObject({
        status: "warn",
        reason: expect.stringContaining("AOF is off (only RDB snapshots: save 3600 1)"),
      });
      expect(rdb.code).toBe(0);
    } finally {
      admin.disconnect();
      await server.stop();
    }
  });

  it("warns about an evicting policy without a memory limit and fails it with one", async () => {
    const { server, admin } = await throwawayRedis();
    try {
      await admin.config("SET", "maxmemory-policy", "allkeys-lru");
      const unlimited = await doctor(healthy({ redis: { url: server.url, key_prefix: "doctor" } }));
      expect(unlimited.check("redis.eviction")).toMatchObject({
        status: "warn",
        reason: expect.stringContaining("maxmemory-policy is allkeys-lru"),
        fix: expect.stringContaining("noeviction"),
      });
      await admin.config("SET", "maxmemory", "100mb");
      const limited = await doctor(healthy({ redis: { url: server.url, key_prefix: "doctor" } }));
      expect(limited.code).toBe(1);
      expect(limited.check("redis.eviction")).toMatchObject({
        status: "fail",
        reason: expect.stringContaining("Redis deletes keys"),
      });
    } finally {
      admin.disconnect();
      await server.stop();
    }
  });

  it("fails a config with a misspelt key, naming it, and runs no check that needs the config", async () => {
    const { code, report, check } = await doctor(`redis:\n  url: ${good.url}\n  key_prefx: doctor\n`);
    expect(code).toBe(1);
    expect(check("config")).toMatchObject({
      status: "fail",
      reason: expect.stringContaining("key_prefx"),
      fix: expect.stringContaining("echo-runner config check"),
    });
    expect(report.checks).toHaveLength(1);
  });

  it("runs a probe inside the sandbox and reports what it found; warns on the local host", async () => {
    const { check } = await doctor(healthy());
    expect(check("exec.host")).toMatchObject({
      status: "ok",
      reason: expect.stringContaining(
        "read-only system, writable workspace, no network, no capabilities, seccomp filter",
      ),
    });
    expect(check("tool:exec")?.status).toBe("ok");
    const local = await doctor(healthy({ tools: { exec: { host: "local" } } }));
    expect(local.check("exec.host")).toMatchObject({
      status: "warn",
      reason: expect.stringContaining("uncontained"),
    });
  });

  it("warns about a tool that is configured but not ready (web_search without its API key)", async () => {
    const { code, check } = await doctor(
      healthy({ tools: { web: { search: { provider: "brave", api_key_env: "DOCTOR_SEARCH_KEY" } } } }),
    );
    expect(code).toBe(0);
    expect(check("tool:web_search")).toMatchObject({
      status: "warn",
      reason: expect.stringContaining("DOCTOR_SEARCH_KEY"),
    });
    const withKey = await doctor(
      healthy({ tools: { web: { search: { provider: "brave", api_key_env: "DOCTOR_SEARCH_KEY" } } } }),
      { DOCTOR_SEARCH_KEY: "bsk-test-1234567890" },
    );
    expect(withKey.check("tool:web_search")).toMatchObject({ status: "ok", reason: "ready" });
  });

  it("fails when the SMTP server does not answer, or its login has no password", async () => {
    const closed = await freePort();
    const down = await doctor(healthy({ smtp: { host: "127.0.0.1", port: closed } }));
    expect(down.code).toBe(1);
    expect(down.check("smtp")).toMatchObject({
      status: "fail",
      reason: expect.stringContaining(`cannot use the SMTP server 127.0.0.1:${closed}`),
      fix: expect.stringContaining("smtp.port"),
    });
    const noPassword = await doctor(
      healthy({ smtp: { host: smtp.host, port: smtp.port, user: "mailer", password_env: "DOCTOR_SMTP_PW" } }),
    );
    expect(noPassword.check("smtp")).toMatchObject({
      status: "fail",
      reason: expect.stringContaining("DOCTOR_SMTP_PW"),
    });
    const login = await doctor(
      healthy({ smtp: { host: smtp.host, port: smtp.port, user: "mailer", password_env: "DOCTOR_SMTP_PW" } }),
      { DOCTOR_SMTP_PW: "s3cret-pass" },
    );
    expect(login.check("smtp")).toMatchObject({
      status: "ok",
      reason: expect.stringContaining("accepted the login of mailer"),
    });
    expect(JSON.stringify(login.report)).not.toContain("s3cret-pass");
  });

  it("fails a loopback public URL when mails go out, since approvers elsewhere cannot open the links", async () => {
    const { code, check } = await doctor(healthy({ http: { public_url: "http://localhost:8787" } }));
    expect(code).toBe(1);
    expect(check("http.public_url")).toMatchObject({
      status: "fail",
      reason: expect.stringContaining("loopback"),
      fix: expect.stringContaining("http.public_url"),
    });
  });

  it("prints one line per finding with its fix, the ready tools on one line, and a summary", async () => {
    n += 1;
    const path = join(dir, `echo-${n}.yaml`);
    await writeFile(path, stringify(healthy({ http: { public_url: "http://localhost:8787" } })));
    const out = bufferIo("", { HOME: dir }, dir);
    const code = await runCli(["doctor", "--config", path], out.io);
    expect(code).toBe(1);
    const text = out.stdout();
    expect(text).toMatch(/^ok {4}config +valid/m);
    expect(text).toMatch(/^FAIL {2}http\.public_url +approval links point at http:\/\/localhost:8787/m);
    expect(text).toMatch(/^ +fix: set http\.public_url/m);
    expect(text).toMatch(/^ok {4}tools +\d+ ready: .*read_file/m);
    expect(text).toMatch(/\nFAILED \(\d+ ok, \d+ warn, 1 fail\)\n$/);
  });

  it("warns when a schedule's owner has no approvers entry, since its budget stops would notify nobody", async () => {
    const schedule = {
      id: "nightly",
      cron: "0 2 * * *",
      timezone: "UTC",
      agent: "a",
      overlap: "skip",
      catch_up: "none",
      jitter_seconds: 0,
      enabled: true,
      authorized: false,
    };
    const agents = { a: { model: "s", task: "t", workspace: dir } };
    const models = { s: { provider: "scripted", script: "x.yaml" } };
    const orphan = await doctor(healthy({ models, agents, schedules: [{ ...schedule, owner: "bob" }] }));
    expect(orphan.check("owners")).toMatchObject({ status: "warn" });
    expect(orphan.check("owners")?.reason).toContain("nightly (owner bob)");
    const owned = await doctor(healthy({ models, agents, schedules: [{ ...schedule, owner: "alice" }] }));
    expect(owned.check("owners")).toMatchObject({ status: "ok" });
  });
});
