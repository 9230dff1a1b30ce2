import type { EchoRunnerConfig } from "../../../config/index.js";
import { systemHostResolver } from "../../../platform/index.js";
import { sandboxFromConfig } from "../../../runtime/index.js";
import type { DeepReadonly } from "../../../shared/index.js";
import { cgroupsDescription, probeSandbox } from "../../../tools/index.js";
import { type DoctorCheck, fail, ok, warn } from "./doctor-check.js";

const LOCAL_FIX = "set tools.exec.host: sandbox (needs bubblewrap) to contain commands";

/**
 * The exec host: on the sandbox host, whether bubblewrap can make a sandbox here, and what a probe
 * run inside one found (read-only system, writable workspace, no network, no capabilities); on the
 * local host, a warning that commands run uncontained.
 */
export async function checkSandbox(
  config: DeepReadonly<EchoRunnerConfig>,
  baseDir: string,
): Promise<DoctorCheck> {
  const host = config.tools.exec.host;
  if (host === "local") {
    return warn(
      "exec.host",
      "tools.exec.host is local: exec-class tools run commands on this host, uncontained",
      LOCAL_FIX,
    );
  }
  if (host === "remote")
    return fail("exec.host", "tools.exec.host is remote, which is not implemented", LOCAL_FIX);
  let sandbox: ReturnType<typeof sandboxFromConfig>;
  try {
    sandbox = sandboxFromConfig(config, { protectedPaths: [], resolver: systemHostResolver(), baseDir });
  } catch (err) {
    return fail("exec.host", (err as Error).message, "give the agent a workspace of its own");
  }
  if (sandbox === undefined) return fail("exec.host", "no sandbox host was built", LOCAL_FIX);
  const readiness = sandbox.readiness();
  if (!readiness.ready) {
    return fail(
      "exec.host",
      readiness.detail,
      "apt-get install bubblewrap socat (and allow user namespaces), or set tools.exec.host: local knowingly",
    );
  }
  const probe = await probeSandbox(sandbox);
  const found = [
    probe.readOnlySystem ? "read-only system" : "SYSTEM WRITABLE",
    probe.writableWorkspace ? "writable workspace" : "WORKSPACE NOT WRITABLE",
    probe.noNetwork ? "no network" : "NETWORK REACHABLE",
    probe.noCapabilities ? "no capabilities" : "CAPABILITIES HELD",
    probe.seccompFiltered ? "seccomp filter" : "NO SECCOMP FILTER",
    `uid ${probe.uid}`,
  ].join(", ");
  const good =
    probe.readOnlySystem &&
    probe.writableWorkspace &&
    probe.noNetwork &&
    probe.noCapabilities &&
    probe.seccompFiltered;
  if (!good) {
    return fail(
      "exec.host",
      `sandbox probe: ${probe.error ?? found}`,
      "check the bubblewrap installation; set tools.exec.host: local only knowingly",
    );
  }
  return ok(
    "exec.host",
    `sandbox (bubblewrap, network ${sandbox.network}): probe inside found ${found}; limits ${sandbox.limits.maxProcesses} processes, ${sandbox.limits.memoryMb} MiB, ${sandbox.limits.fileSizeMb} MiB files, ${sandbox.limits.cpuSeconds} s CPU; ${cgroupsDescription(sandbox.cgroups)}`,
  );
}
