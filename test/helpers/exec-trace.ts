import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/**
 * Runs shell scripts for real and reports the programs they exec'd: each script runs inside
 * bubblewrap (read-only /usr and /etc only — no /run, /var, /home or host sockets —, a throw-away
 * directory, no network, every namespace unshared, `--die-with-parent`, uid 65534 inside and,
 * when the test runs as root, uid 65534 outside too) under `strace -f --seccomp-bpf -e
 * trace=execve`. Many scripts share one sandbox (one strace each), so thousands of scripts take a
 * minute or two. With `--seccomp-bpf` the kernel stops a traced process at execve only, not at
 * every system call: 600 scripts took 30 s instead of 36, and 400 generated scripts exec'd the same
 * programs either way (up to the order of concurrent processes, 635 execs each).
 */
export interface TracedRun {
  /** Basenames of the programs successfully exec'd by the script (not the harness's own shell). */
  programs: string[];
  /** True when the script ran at all (its case marker was seen). */
  ran: boolean;
}

/**
 * Helpers a program execs as part of itself whatever the line says, so a program's name covers
 * them: libutempter's setgid `utempter` records the terminals tmux opens in utmp.
 */
export const OWN_HELPERS: Readonly<Record<string, readonly string[]>> = { tmux: ["utempter"] };

/** What runs a script: bash (what exec-class tools run) or dash (what `sh` is on Debian). */
export type TraceShell = "bash" | "dash";

/** True when bwrap, strace, bash and dash are all installed. */
export function execTraceAvailable(): boolean {
  return ["bwrap", "strace", "bash", "dash", "timeout"].every(
    (tool) => spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status === 0,
  );
}

function sandboxArgs(scripts: string, work: string): string[] {
  return [
    "--unshare-all",
    "--die-with-parent",
    "--unshare-user",
    "--uid",
    "65534",
    "--gid",
    "65534",
    "--new-session",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/sbin",
    "/sbin",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--ro-bind",
    "/etc",
    "/etc",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--ro-bind",
    scripts,
    "/s",
    "--bind",
    work,
    "/w",
    "--chdir",
    "/w",
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/local/bin:/usr/bin:/bin",
    "--setenv",
    "HOME",
    "/w",
  ];
}

const EXECVE = /execve\("([^"]*)", .*\)\s+= 0$/;
// With several processes, strace splits a call: `[pid 7] execve("/bin/x", … <unfinished ...>`, then
// `[pid 7] <... execve resumed>) = 0`.
const UNFINISHED = /^\[pid\s+(\d+)\] execve\("([^"]*)", .*<unfinished \.\.\.>$/;
const RESUMED = /^\[pid\s+(\d+)\] <\.\.\. execve resumed>.*\)\s+= 0$/;

/** Runs one batch in one sandbox; resolves with the raw trace (stderr). */
function runBatch(
  scripts: readonly string[],
  shells: readonly TraceShell[],
  root: string,
): Promise<TracedRun[]> {
  const dir = mkdtempSync(join(root, "batch-"));
  const s = join(dir, "s");
  const w = join(dir, "w");
  mkdirSync(s);
  mkdirSync(w);
  chmodSync(dir, 0o755);
  chmodSync(w, 0o777);
  // The script's own output is dropped; strace's trace goes to stderr, case by case.
  writeFileSync(join(s, "run.sh"), 'exec </dev/null >/dev/null 2>&1\nexec "$@"\n');
  const lines = ["ulimit -u 2000 2>/dev/null", "ulimit -f 10240 2>/dev/null"];
  scripts.forEach((script, i) => {
    writeFileSync(join(s, `${i}.sh`), script);
    lines.push(
      `echo "@@case ${i}" >&2; mkdir -p /w/d${i} && cd /w/d${i} && timeout -s KILL 5 strace -f --seccomp-bpf -qq -e trace=execve -e signal=none -s 0 bash /s/run.sh ${shells[i]} /s/${i}.sh; cd /w`,
    );
  });
  writeFileSync(join(s, "driver.sh"), `${lines.join("\n")}\n`);
  chmodSync(s, 0o755);
  const bwrap = ["bwrap", ...sandboxArgs(s, w), "bash", "/s/driver.sh"];
  // Never as root on the host: drop to nobody before bwrap makes its user namespace.
  const argv =
    process.getuid?.() === 0
      ? ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", ...bwrap]
      : bwrap;
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
    const chunks: Buffer[] = [];
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", () => {
      rmSync(dir, { recursive: true, force: true });
      const runs: TracedRun[] = scripts.map(() => ({ programs: [], ran: false }));
      let current: TracedRun | undefined;
      let skip = 0;
      const pending = new Map<string, string>();
      for (const line of Buffer.concat(chunks).toString("utf8").split("\n")) {
        const marker = /^@@case (\d+)$/.exec(line);
        if (marker) {
          current = runs[Number(marker[1])];
          if (current) current.ran = true;
          // The harness's own two execs: `bash run.sh` and its `exec <shell> N.sh`.
          skip = 2;
          continue;
        }
        const unfinished = UNFINISHED.exec(line);
        if (unfinished) {
          pending.set(unfinished[1] as string, unfinished[2] as string);
          continue;
        }
        const resumed = RESUMED.exec(line);
        const path = resumed ? pending.get(resumed[1] as string) : EXECVE.exec(line)?.[1];
        if (resumed) pending.delete(resumed[1] as string);
        if (path === undefined || current === undefined) continue;
        if (skip > 0) {
          skip--;
          continue;
        }
        current.programs.push(basename(path));
      }
      resolve(runs);
    });
  });
}

/** Runs every script (by the shell given for it) and reports what each exec'd. */
export async function traceExecs(
  scripts: readonly string[],
  shells: readonly TraceShell[],
  parallel = 2,
): Promise<TracedRun[]> {
  const root = mkdtempSync(join(tmpdir(), "exec-trace-"));
  chmodSync(root, 0o755);
  try {
    const size = Math.ceil(scripts.length / parallel);
    const batches: Promise<TracedRun[]>[] = [];
    for (let from = 0; from < scripts.length; from += size) {
      batches.push(runBatch(scripts.slice(from, from + size), shells.slice(from, from + size), root));
    }
    return (await Promise.all(batches)).flat();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
