import { describe, expect, it } from "vitest";
import { RunnerError } from "../../shared/index.js";
import { buildBwrapArgs, limitArgs } from "./bwrap-args.js";
import { decideEgress, type EgressProxyOptions } from "./egress-proxy.js";
import { createSandboxHost } from "./sandbox-host.js";
import { DEFAULT_SANDBOX_LIMITS, resolveSandboxLimits } from "./sandbox-settings.js";
import { resolveSystemMounts } from "./system-mounts.js";
import { checkWorkspaceOverlap } from "./workspace-overlap.js";

const plan = {
  system: resolveSystemMounts(),
  workspace: "/srv/ws",
  cwd: "/srv/ws/sub",
  uid: 65534,
  gid: 65534,
  limits: DEFAULT_SANDBOX_LIMITS,
  prlimit: "/usr/bin/prlimit",
  bash: "/usr/bin/bash",
  command: ["/usr/bin/bash", "-c", "ls"] as [string, ...string[]],
};

describe("buildBwrapArgs", () => {
  it("unshares every namespace, drops every capability, dies with its parent and starts a new session", () => {
    const args = buildBwrapArgs(plan);
    for (const flag of [
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-net",
      "--disable-userns",
      "--die-with-parent",
      "--new-session",
    ]) {
      expect(args).toContain(flag);
    }
    expect(args.join(" ")).toContain("--cap-drop ALL");
  });

  it("makes the workspace the only writable bind and never mounts /etc/shadow, /root or /home", () => {
    const args = buildBwrapArgs(plan);
    const binds = args.flatMap((a, i) => (a === "--bind" ? [args[i + 1]] : []));
    expect(binds).toEqual(["/srv/ws"]);
    const sources = args.flatMap((a, i) => (a === "--ro-bind" ? [args[i + 1]] : []));
    for (const source of sources) {
      expect(source).not.toMatch(/^\/(root|home)(\/|$)|^\/etc\/(g?shadow|sudoers|ssh)/);
    }
    expect(sources).toContain("/usr");
    expect(args.join(" ")).toContain(`--size ${512 * 1024 * 1024} --tmpfs /tmp`);
    expect(args.join(" ")).toContain("--chdir /srv/ws/sub --");
  });

  it("has no network bridge without a proxy, and a socat bridge with one", () => {
    expect(buildBwrapArgs(plan).join(" ")).not.toContain("socat");
    const withProxy = buildBwrapArgs({ ...plan, proxyDir: "/tmp/p", socat: "/usr/bin/socat" });
    expect(withProxy.join(" ")).toContain("--ro-bind /tmp/p /run/echo-proxy");
    expect(withProxy.join(" ")).toContain("ECHO_SOCAT=/usr/bin/socat");
  });

  it("applies every limit with prlimit, soft and hard alike", () => {
    expect(limitArgs("/usr/bin/prlimit", resolveSandboxLimits({ maxProcesses: 64, fileSizeMb: 1 }))).toEqual([
      "/usr/bin/prlimit",
      "--cpu=300",
      `--as=${8192 * 1024 * 1024}`,
      "--nproc=64",
      `--fsize=${1024 * 1024}`,
      "--nofile=1024",
      "--core=0",
      "--",
    ]);
  });

  it("refuses a limit that is not a whole number above zero", () => {
    expect(() => resolveSandboxLimits({ uid: 0 })).toThrow(RunnerError);
    expect(() => resolveSandboxLimits({ memoryMb: 1.5 })).toThrow(/memoryMb/);
  });
});

describe("checkWorkspaceOverlap", () => {
  it.each([
    ["/srv/runner/data/ws", "the runner's own directory"],
    ["/srv", "the runner's own directory"],
    ["/", "overlaps"],
    ["/usr/local/ws", "system directory /usr"],
    ["/etc", "system directory /etc"],
    ["/home", "system directory /home"],
  ])("refuses the workspace %s", (ws, message) => {
    expect(() => checkWorkspaceOverlap(ws, ["/srv/runner/config", "/srv/runner/data"])).toThrow(message);
  });

  it.each(["/srv/agents/a", "/tmp/ws", "/home/ann/agent"])("accepts the workspace %s", (ws) => {
    expect(() => checkWorkspaceOverlap(ws, ["/srv/runner/config", "/srv/runner/data"])).not.toThrow();
  });
});

describe("decideEgress", () => {
  const options = (allowedHosts: string[], policy: "allow" | "restricted"): EgressProxyOptions => ({
    checkUrl: async (url) => {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
      const internal = host === "127.0.0.1" || host === "rebind.test" || host === "intranet.test";
      return internal
        ? { verdict: "ask", reason: `${host} is an internal address (loopback)`, host, connectTo: [] }
        : { verdict: "allow", reason: "public", host, connectTo: ["93.184.216.34"] };
    },
    lookup: async () => ["10.0.0.7"],
    hostPolicy: (host) =>
      policy === "allow" || allowedHosts.includes(host)
        ? undefined
        : `${host} is not in execution.allowed_hosts`,
    allowedHosts,
  });

  it("lets a public host through with the checked addresses under allow", async () => {
    expect(await decideEgress(options([], "allow"), { host: "example.com", port: 443 })).toEqual({
      ok: true,
      addresses: ["93.184.216.34"],
    });
  });

  it("refuses a host missing from allowed_hosts under restricted", async () => {
    const d = await decideEgress(options(["example.com"], "restricted"), { host: "other.com", port: 443 });
    expect(d).toMatchObject({ ok: false, reason: expect.stringContaining("allowed_hosts") });
  });

  it("refuses an internal address under allow unless its host is named exactly", async () => {
    const refused = await decideEgress(options([], "allow"), { host: "rebind.test", port: 80 });
    expect(refused).toMatchObject({ ok: false, reason: expect.stringContaining("internal") });
    const named = await decideEgress(options(["intranet.test"], "allow"), {
      host: "intranet.test",
      port: 80,
    });
    expect(named).toEqual({ ok: true, addresses: ["10.0.0.7"] });
  });

  it("refuses an invalid port", async () => {
    expect(await decideEgress(options([], "allow"), { host: "example.com", port: 0 })).toMatchObject({
      ok: false,
    });
  });
});

describe("createSandboxHost readiness", () => {
  it("is not ready when bwrap is missing, and says how to install it or choose local", () => {
    const host = createSandboxHost({ network: "deny", bwrap: "/nonexistent/bwrap" });
    const readiness = host.readiness();
    expect(readiness.ready).toBe(false);
    expect(readiness.detail).toContain("/nonexistent/bwrap");
    expect(readiness.detail).toContain("apt-get install bubblewrap");
    expect(readiness.detail).toContain("tools.exec.host: local");
  });

  it("is not ready when socat is missing and the network goes through the proxy", () => {
    const host = createSandboxHost({ network: "allow", socat: "/nonexistent/socat" });
    expect(host.readiness()).toMatchObject({ ready: false, detail: expect.stringContaining("socat") });
  });

  it("is ready where bubblewrap can make a sandbox (this machine)", () => {
    const host = createSandboxHost({ network: "deny" });
    expect(host.readiness()).toMatchObject({ ready: true, detail: expect.stringContaining("bubblewrap") });
  });
});
