import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { boundPublicUrl } from "../../src/config/index.js";
import { enqueueAgentRun, openAgentQueue } from "../../src/queue/index.js";
import { isRunnerError } from "../../src/shared/index.js";
import { testPayload } from "../helpers/agent-harness.js";
import { startCli } from "../helpers/cli-process.js";
import { testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

describe("approval links with http.port 0", () => {
  it("puts the bound port in place of port 0, and refuses a worker that cannot know it", () => {
    expect(boundPublicUrl("http://127.0.0.1:0", "http://127.0.0.1:41235")).toBe("http://127.0.0.1:41235");
    expect(boundPublicUrl("http://[::1]:0/runner", "http://[::1]:5000")).toBe("http://[::1]:5000/runner");
    expect(boundPublicUrl("https://runner.example.com", "http://127.0.0.1:41235")).toBe(
      "https://runner.example.com",
    );
    let error: unknown;
    try {
      boundPublicUrl("http://127.0.0.1:0", undefined);
    } catch (err) {
      error = err;
    }
    expect(isRunnerError(error) && error.code).toBe("CONFIG_INVALID");
  });

  it("`start` with http.port 0 mails a link to the port the server bound, and the link opens", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-port0-"));
    const keyPrefix = uniquePrefix("port0").replace(/:/g, "-");
    await writeFile(
      join(dir, "script.yaml"),
      stringify([
        { tool_calls: [{ name: "exec", arguments: { command: "make build" } }] },
        { content: "done" },
      ]),
    );
    await writeFile(
      join(dir, "echo.yaml"),
      stringify({
        redis: { key_prefix: keyPrefix },
        http: { port: 0 },
        security: { profile: "personal_cli" },
        permissions: { elevated: { enabled: false } },
        approvers: [{ id: "ann", email: "ann@example.com" }],
        logging: { level: "info", format: "json" },
        models: { scripted: { provider: "scripted", script: "script.yaml" } },
      }),
    );
    const cli = startCli(["start", "--config", join(dir, "echo.yaml")], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, REDIS_URL: testRedisUrl() },
    });
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const queue = openAgentQueue(redis, keyPrefix);
    try {
      await cli.waitForOutput(/echo-runner is running/);
      const bound = /"address":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(cli.output())?.[1];
      expect(bound, cli.output()).toBeDefined();
      expect(Number(bound)).toBeGreaterThan(0);
      await enqueueAgentRun(queue, testPayload({}, { workspace: dir }));
      const link = /http:\/\/127\.0\.0\.1:(\d+)\/approvals\/[^\s"'<>]+/;
      await cli.waitForOutput(link);
      const match = link.exec(cli.output()) as RegExpExecArray;
      expect(match[1]).toBe(bound);
      const page = await fetch(match[0]);
      expect(page.status).toBe(200);
    } finally {
      cli.child.kill("SIGTERM");
      await cli.exited;
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      redis.disconnect();
    }
  });
});
