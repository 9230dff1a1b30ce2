import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyTool } from "../../src/catalog/index.js";
import type { ToolResult } from "../../src/catalog/tool-result.js";
import { checkUrl, createPathFence } from "../../src/guard/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { isHostAllowed } from "../../src/policy/index.js";
import { createSandboxHost, type SandboxHost, type SandboxNetworkPolicy } from "../../src/tools/index.js";
import { createExecTool } from "../../src/tools/process/exec.js";
import { createExecuteCodeTool } from "../../src/tools/process/execute-code.js";
import { createProcessTool } from "../../src/tools/process/process.js";
import {
  callContext,
  fenceFactory,
  processToolOptions,
  tempWorkspace,
  testSupervisor,
} from "../../src/tools/registry/builtin-tools.fixture.js";
import { invokeTool } from "../../src/tools/registry/invoke-tool.js";
import { type LocalHttpServer, startLocalHttpServer } from "../helpers/local-http-server.js";
import { testRedisUrl } from "../helpers/test-redis.js";

/**
 * Escape attempts, each through the real exec tool inside a real bubblewrap sandbox:
 * every one must fail while the command's workspace result is right and the worker stays healthy.
 * The test process is the worker here (root on CI, so commands run as uid 65534).
 */

const ALLOWED_HOST = "allowed.test";
const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
const supervisor = testSupervisor();
let server: LocalHttpServer;
const redisPort = Number(new URL(testRedisUrl()).port);
// A secret in the worker's own environment: nothing inside may see it.
process.env.ECHO_SANDBOX_TEST_SECRET = "s3cr3t-worker-value";

beforeAll(async () => {
  server = await startLocalHttpServer({
    "/": (_hit, res) => {
      res.end("hello from the allowed host\n");
    },
  });
});
afterAll(async () => {
  await supervisor.close();
  await server.close();
});

/**
 * The proxy's SSRF check: the real one over a resolver with fixed answers (no DNS), except that
 * the allowed test host is admitted to the loopback test server, as the web_fetch tests do.
 */
const RESOLVES: Readonly<Record<string, readonly string[]>> = {
  "other.test": ["203.0.113.7"],
  "rebind.test": ["203.0.113.8", "127.0.0.1"],
  "intranet.test": ["10.1.2.3"],
};
function sandboxFor(network: SandboxNetworkPolicy, limits = {}): SandboxHost {
  const allowedHosts = [ALLOWED_HOST, "rebind.test", "127.0.0.1"].filter(
    (h) => network === "restricted" || h === ALLOWED_HOST,
  );
  return createSandboxHost({
    network,
    limits: { maxProcesses: 64, fileSizeMb: 1, tmpMb: 16, cpuSeconds: 60, ...limits },
    egress: {
      checkUrl: async (url) => {
        const host = new URL(url).hostname;
        if (host === ALLOWED_HOST)
          return { verdict: "allow", reason: "test", host, connectTo: ["127.0.0.1"] };
        return checkUrl(url, { resolve: async (name) => RESOLVES[name] ?? [] });
      },
      lookup: async (name) => RESOLVES[name] ?? [],
      hostPolicy: (host) =>
        network === "allow" || isHostAllowed(host, allowedHosts)
          ? undefined
          : `${host} is not in execution.allowed_hosts`,
      // 127.0.0.1 is never named exactly here, so the Redis on it is never admitted.
      allowedHosts: [ALLOWED_HOST],
    },
  });
}

const hosts = {
  deny: sandboxFor("deny"),
  restricted: sandboxFor("restricted"),
  allow: sandboxFor("allow"),
};

function execIn(sandbox: SandboxHost): AnyTool {
  return createExecTool({
    ...processToolOptions(fence, supervisor, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...process.env },
    }),
    execHost: "sandbox",
    sandbox,
  }) as unknown as AnyTool;
}
const exec = { deny: execIn(hosts.deny), restricted: execIn(hosts.restricted), allow: execIn(hosts.allow) };

async function run(
  command: string,
  options: { ws?: string; tool?: AnyTool; timeout?: number } = {},
): Promise<{ result: ToolResult; ws: string }> {
  const ws = options.ws ?? (await tempWorkspace("escape"));
  const tool = options.tool ?? exec.deny;
  const args = { command, ...(options.timeout ? { timeout_seconds: options.timeout } : {}) };
  const result = await invokeTool(tool, args, callContext(tool, ws));
  return { result, ws };
}

/** The command's own work: a file in the workspace, written after the attack. */
const WORK = "echo done > result.txt";
async function workDone(ws: string): Promise<void> {
  expect(await readFile(`${ws}/result.txt`, "utf8")).toBe("done\n");
}

/** Host processes whose command line holds `marker`. */
function hostProcessesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

async function workerHealthy(): Promise<void> {
  const { result } = await run("echo alive");
  expect(result).toMatchObject({ success: true, output: "alive\n" });
}

describe("sandbox: the filesystem", () => {
  it("refuses writes outside the workspace: absolute, .. and through a planted symlink to /", async () => {
    const tag = `escape-${process.pid}-${Date.now()}`;
    const { result, ws } = await run(
      [
        `echo x > /etc/${tag} 2>/dev/null && echo WROTE-ETC`,
        `echo x > /usr/${tag} 2>/dev/null && echo WROTE-USR`,
        // The workspace's parent inside is the sandbox's own (private /tmp, for a workspace in /tmp).
        `echo x > ../${tag} 2>/dev/null || echo PARENT-REFUSED`,
        `ln -s / rootlink && (echo x > rootlink/var/${tag}) 2>/dev/null && echo WROTE-LINK`,
        `(echo x > rootlink/etc/${tag}) 2>/dev/null && echo WROTE-LINK-ETC`,
        WORK,
      ].join("; "),
    );
    expect(result.success).toBe(true);
    expect(result.output).not.toMatch(/WROTE/);
    for (const path of [`/etc/${tag}`, `/usr/${tag}`, `/var/${tag}`, `${ws}/../${tag}`]) {
      expect(existsSync(path), path).toBe(false);
    }
    await workDone(ws);
  });

  it("cannot read /etc/shadow, /root or /home, and has a private /tmp", async () => {
    const { result, ws } = await run(
      `cat /etc/shadow 2>&1 | head -c 200; ls /root /home 2>&1; ls -A /tmp; ${WORK}`,
    );
    expect(result.output).toContain("/etc/shadow: No such file or directory");
    expect(result.output).toMatch(/cannot access '\/root'/);
    expect(result.output).not.toMatch(/root:\$|root:\*/);
    await workDone(ws);
  });

  it("cannot read the worker's environment through /proc: no worker process is visible", async () => {
    const { result, ws } = await run(
      `cat /proc/${process.pid}/environ 2>&1 | head -c 100; echo "secret=$(cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ECHO_SANDBOX_TEST_SECRET)"; echo "pids=$(ls /proc | grep -cE '^[0-9]+$')"; ${WORK}`,
    );
    expect(result.output).not.toContain("s3cr3t-worker-value");
    expect(result.output).toContain(`/proc/${process.pid}/environ: No such file or directory`);
    expect(result.output).toContain("secret=0\n");
    expect(Number(/pids=(\d+)/.exec(result.output ?? "")?.[1])).toBeLessThan(10);
    await workDone(ws);
  });
});

describe("sandbox: privileges", () => {
  it("cannot reboot, mount or chown to root, and setuid binaries give nothing", async () => {
    const { result, ws } = await run(
      [
        "echo x > mine",
        "chown 0:0 mine 2>/dev/null && echo CHOWNED",
        "mount -t tmpfs none /mnt 2>/dev/null && echo MOUNTED",
        "reboot -f 2>/dev/null && echo REBOOTED",
        "su -c id root </dev/null 2>/dev/null && echo SU",
        "grep CapEff /proc/self/status",
        "id -u",
        WORK,
      ].join("; "),
    );
    expect(result.output).not.toMatch(/CHOWNED|MOUNTED|REBOOTED|SU\n/);
    expect(result.output).toContain("CapEff:\t0000000000000000");
    if (process.getuid?.() === 0) expect(result.output).toMatch(/\n65534\n$/);
    await workDone(ws);
    await workerHealthy();
  });

  it("ends a fork bomb at the process limit; the worker is unharmed", async () => {
    const { result, ws } = await run(`${WORK}; bomb() { bomb | bomb & }; bomb; sleep 1; echo after-bomb`, {
      timeout: 20,
    });
    expect(result.success ? "ok" : result.errorKind).toMatch(/^(ok|timeout|business)$/);
    expect(result.output).toContain("fork: ");
    await workDone(ws);
    await workerHealthy();
  });

  it("stops a file at the file-size limit", async () => {
    const { result, ws } = await run(`head -c 5000000 /dev/zero > big; echo "exit $?"; ${WORK}`);
    expect(result.output).toMatch(/exit [1-9]/);
    expect(statSizeOf(`${ws}/big`)).toBeLessThanOrEqual(1024 * 1024);
    await workDone(ws);
  });

  it("kills the whole sandbox at the timeout: nothing of it is left", async () => {
    const marker = `987.${process.pid % 1000}`;
    const { result, ws } = await run(`${WORK}; sleep ${marker} & sleep ${marker} & sleep ${marker}`, {
      timeout: 1,
    });
    expect(result).toMatchObject({ success: false, errorKind: "timeout" });
    await workDone(ws);
    const deadline = Date.now() + 5000;
    while (hostProcessesWith(marker).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(hostProcessesWith(marker)).toEqual([]);
    await workerHealthy();
  });
});

function statSizeOf(path: string): number {
  try {
    return readFileSync(path).length;
  } catch {
    return 0;
  }
}

describe("sandbox: the network", () => {
  const redisAttempt = `(exec 3<>/dev/tcp/127.0.0.1/${redisPort} && echo REDIS-OPEN) 2>/dev/null; curl -s -m 5 http://127.0.0.1:${redisPort}/ 2>&1 | head -c 120; echo`;

  it.each(["deny", "restricted", "allow"] as const)(
    "never reaches the test Redis on the host's loopback (network %s)",
    async (policy) => {
      const { result, ws } = await run(`${redisAttempt}; ${WORK}`, { tool: exec[policy] });
      expect(result.output).not.toContain("REDIS-OPEN");
      expect(result.output).not.toMatch(/-ERR|\+PONG|wrong number/);
      await workDone(ws);
    },
  );

  it("has no network at all under deny", async () => {
    const { result, ws } = await run(
      `curl -s -m 3 http://${ALLOWED_HOST}:${server.port}/ || echo NO-NET; env | grep -ci proxy; ${WORK}`,
    );
    expect(result.output).toContain("NO-NET");
    expect(result.output).toMatch(/^NO-NET\n0\n$/m);
    await workDone(ws);
  });

  it("under restricted reaches an allowed host through the proxy, and the proxy refuses any other host, an internal address and a rebinding name", async () => {
    const hitsBefore = server.hits.length;
    const { result, ws } = await run(
      [
        `curl -s -m 10 http://${ALLOWED_HOST}:${server.port}/`,
        `curl -s -m 10 http://other.test:${server.port}/`,
        `curl -s -m 10 http://127.0.0.1:${server.port}/`,
        `curl -s -m 10 http://rebind.test:${server.port}/`,
        `curl -s -m 10 -x '' http://127.0.0.1:${server.port}/ || echo DIRECT-FAILED`,
        WORK,
      ].join("; echo; "),
      { tool: exec.restricted },
    );
    const out = result.output ?? "";
    expect(out).toContain("hello from the allowed host");
    expect(out).toMatch(/other\.test:\d+ refused: other\.test is not in execution\.allowed_hosts/);
    expect(out).toMatch(/127\.0\.0\.1:\d+ refused: .*internal/);
    expect(out).toMatch(/rebind\.test:\d+ refused: .*internal/);
    expect(out).toContain("DIRECT-FAILED");
    expect(server.hits.length - hitsBefore).toBe(1);
    await workDone(ws);
  });

  it("under allow still refuses internal addresses and rebinding names", async () => {
    const { result, ws } = await run(
      `curl -s -m 10 http://intranet.test/; echo; curl -s -m 10 http://rebind.test:${server.port}/; echo; ${WORK}`,
      { tool: exec.allow },
    );
    expect(result.output).toMatch(/intranet\.test:80 refused: .*internal/);
    expect(result.output).toMatch(/rebind\.test:\d+ refused: .*internal/);
    await workDone(ws);
  });
});

describe("sandbox: everyday work", () => {
  it.each([
    ["ls", "touch a b && ls", /^a\nb\n$/],
    [
      "git init and commit",
      "git init -q && echo hi > f && git add f && git -c user.name=t -c user.email=t@example.test commit -qm init && git log --oneline | wc -l",
      /^1\n$/,
    ],
    ["npm --version", "npm --version", /^\d+\.\d+\.\d+\n$/],
    [
      "tar",
      "echo r > report.md && tar -czf report.tar.gz report.md && tar -tzf report.tar.gz",
      /^report\.md\n$/,
    ],
    ["python3 -c", "python3 -c 'print(6*7)'", /^42\n$/],
  ])("%s works", async (_name, command, expected) => {
    const { result } = await run(command, { timeout: 60 });
    expect(result.success ? "" : result.error).toBe("");
    expect(result.output).toMatch(expected);
  });

  it("runs execute_code and background processes in sandboxes of their own", async () => {
    const options = {
      ...processToolOptions(fence, supervisor),
      execHost: "sandbox" as const,
      sandbox: hosts.deny,
    };
    const code = createExecuteCodeTool(options) as unknown as AnyTool;
    const ws = await tempWorkspace("escape");
    const py = await invokeTool(
      code,
      { language: "python3", code: "import os\nprint(os.getcwd(), os.path.exists('/etc/shadow'))" },
      callContext(code, ws),
    );
    expect(py.output).toBe(`${ws} False\n`);
    const proc = createProcessTool(options) as unknown as AnyTool;
    const ctx = callContext(proc, ws);
    const started = await invokeTool(
      proc,
      { action: "start", command: "echo bg > bg.txt; ls /proc | grep -cE '^[0-9]+$'" },
      ctx,
    );
    expect(started.success).toBe(true);
    const deadline = Date.now() + 10_000;
    while (!existsSync(`${ws}/bg.txt`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await readFile(`${ws}/bg.txt`, "utf8")).toBe("bg\n");
  });
});
