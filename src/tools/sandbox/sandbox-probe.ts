import { spawn } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxHost } from "./sandbox-host.js";

/** What a command inside the sandbox found about its own confinement. */
export interface SandboxProbe {
  /** /usr could not be written. */
  readonly readOnlySystem: boolean;
  /** A file could be written in the workspace. */
  readonly writableWorkspace: boolean;
  /** No direct connection out (the host's loopback and the internet are unreachable). */
  readonly noNetwork: boolean;
  /** CapEff is 0. */
  readonly noCapabilities: boolean;
  /** The command runs under a seccomp filter (Seccomp: 2 in /proc/self/status). */
  readonly seccompFiltered: boolean;
  /** The uid the command ran as (inside). */
  readonly uid: number;
  /** What went wrong when the probe could not run at all. */
  readonly error?: string;
}

const PROBE_SCRIPT = `ro=no; (echo x > /usr/.echo-probe) 2>/dev/null || ro=yes
ws=no; echo x > .echo-probe && ws=yes && rm -f .echo-probe
net=none; (exec 3<>/dev/tcp/1.1.1.1/53) 2>/dev/null && net=open; (exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null && net=open
caps=$(grep CapEff /proc/self/status | cut -f2)
sec=$(grep '^Seccomp:' /proc/self/status | cut -f2)
echo "ro=$ro ws=$ws net=$net caps=$caps uid=$(id -u) seccomp=$sec"`;

/**
 * Runs a probe inside a real sandbox of `host` in a throwaway workspace (for `doctor`): is the
 * system read-only, the workspace writable, the network absent and every capability dropped?
 */
export async function probeSandbox(host: SandboxHost, bash = "/usr/bin/bash"): Promise<SandboxProbe> {
  const workspace = await realpath(await mkdtemp(join(tmpdir(), "echo-sbx-doctor-")));
  try {
    const launch = await host.prepare({
      workspace,
      cwd: workspace,
      env: { PATH: "/usr/bin:/bin", LANG: "C" },
      command: [bash, "--noprofile", "--norc", "-c", PROBE_SCRIPT],
    });
    try {
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn(launch.file, launch.args, {
          env: launch.env,
          stdio: ["ignore", "pipe", "pipe"],
          ...(launch.uid === undefined ? {} : { uid: launch.uid, gid: launch.gid ?? launch.uid }),
        });
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
        });
        child.stderr.on("data", (d: Buffer) => {
          out += d.toString();
        });
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.on("error", reject);
        child.on("close", () => {
          clearTimeout(timer);
          resolve(out);
        });
      });
      const m = /ro=(\w+) ws=(\w+) net=(\w+) caps=(\w+) uid=(\d+) seccomp=(\d*)/.exec(output);
      if (!m) return failed(output.trim().split("\n")[0] || "the probe printed nothing");
      return {
        readOnlySystem: m[1] === "yes",
        writableWorkspace: m[2] === "yes",
        noNetwork: m[3] === "none",
        noCapabilities: /^0+$/.test(m[4] ?? ""),
        uid: Number(m[5]),
        seccompFiltered: m[6] === "2",
      };
    } finally {
      await launch.dispose();
    }
  } catch (err) {
    return failed((err as Error).message);
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

function failed(error: string): SandboxProbe {
  return {
    readOnlySystem: false,
    writableWorkspace: false,
    noNetwork: false,
    noCapabilities: false,
    seccompFiltered: false,
    uid: -1,
    error,
  };
}
