import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { delimiter, resolve } from "node:path";
import { Redis } from "ioredis";
import { RunnerError } from "../src/shared/index.js";

/** A redis-server that `echo-runner start` runs itself when REDIS_URL is not set. */
export interface LocalRedis {
  url: string;
  dataDir: string;
  /** Asks the server to shut down (it rewrites nothing: AOF is already on disk) and waits. */
  stop(): Promise<void>;
  /** The pid of a redis-server an earlier runner left on this data dir, stopped before this one started. */
  staleStopped?: number;
}

/** setpriv (util-linux) starts redis-server with a parent-death signal, where it is installed. */
const SETPRIV = "/usr/bin/setpriv";

/**
 * The pid of a redis-server still running on `dir` (its pid file names a live process whose command
 * is redis-server and whose working directory is `dir`), or undefined. A pid the kernel has given
 * to another program since does not match.
 */
function staleRedis(dir: string): number | undefined {
  const pidFile = resolve(dir, "redis.pid");
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  if (!Number.isSafeInteger(pid) || pid <= 1) return undefined;
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    if (!command.includes("redis-server")) return undefined;
    return readlinkSync(`/proc/${pid}/cwd`) === dir ? pid : undefined;
  } catch {
    return undefined;
  }
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .some((dir) => dir !== "" && existsSync(resolve(dir, program)));
}

/** Stops a stale redis-server: SIGTERM (it flushes its AOF), SIGKILL after 10 s. */
async function stopStale(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
    } catch {
      return false;
    }
  };
  process.kill(pid, "SIGTERM");
  for (let waited = 0; alive() && waited < 10_000; waited += 50) {
    await new Promise((r) => setTimeout(r, 50));
  }
  if (alive()) process.kill(pid, "SIGKILL");
}

export const REDIS_MISSING_HELP = [
  "redis-server was not found on PATH. echo-runner needs Redis; any one of these works:",
  "  1. install it:        sudo apt-get install redis-server   (macOS: brew install redis)",
  "  2. use Docker:        docker compose up                  (Redis with AOF, the runner and Mailpit)",
  "  3. use your own Redis: REDIS_URL=redis://host:6379 npm start",
].join("\n");

/**
 * Memory settings of the local redis-server (docs/BENCHMARKS.md). A job, journal or approval hash
 * holds a few values of 100–900 bytes (job data, request JSON); with Redis's default limit of 64
 * bytes per value such a hash leaves the compact listpack encoding for a hash table, about 1.6×
 * its size. 1024 keeps them compact; these hashes have tens of fields, so access stays cheap.
 */
export const LOCAL_REDIS_MEMORY_SETTINGS = ["--hash-max-listpack-value", "1024"] as const;

/**
 * Whether `start` runs its own redis-server for `url` when REDIS_URL is unset: only for a Redis on
 * this machine's loopback without credentials, the one it can start. A URL that names another host
 * or a password names the operator's own Redis, which start connects to as it does to REDIS_URL
 * (before, it started a local server on that URL's port and never reached the host named).
 */
export function startsLocalRedis(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username !== "" || parsed.password !== "") return false;
  const host = parsed.hostname;
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Starts redis-server on the port of `url` with AOF on (appendfsync always: an acknowledged journal
 * claim is on disk before the call it claims runs, so a machine crash cannot make it run twice; Redis
 * shares one fsync among the writes of an event-loop turn), maxmemory-policy
 * noeviction and its files under `dataDir`. Fails with REDIS_BINARY_MISSING (and the three ways to
 * get Redis) when the binary is missing.
 */
export async function startLocalRedis(url: string, dataDir: string): Promise<LocalRedis> {
  const parsed = new URL(url);
  const port = Number(parsed.port || "6379");
  const dir = resolve(dataDir);
  await mkdir(dir, { recursive: true });
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--appendonly",
    "yes",
    "--appendfsync",
    "always",
    "--save",
    "",
    "--maxmemory-policy",
    "noeviction",
    ...LOCAL_REDIS_MEMORY_SETTINGS,
    "--daemonize",
    "no",
    "--pidfile",
    resolve(dir, "redis.pid"),
  ];
  // A server an earlier runner left (killed with SIGKILL before it could stop it) holds the port
  // and the AOF: stop it first, and say so.
  // Found here, not by setpriv: a missing binary must read as REDIS_BINARY_MISSING, not as an exit.
  if (!onPath("redis-server")) throw new RunnerError("REDIS_BINARY_MISSING", REDIS_MISSING_HELP);
  const stale = staleRedis(dir);
  if (stale !== undefined) await stopStale(stale);
  // Its own process group: Ctrl+C in a terminal must reach only the runner, which then stops Redis
  // last. Its parent-death signal (SIGTERM: it flushes the AOF and exits) ends it with a runner
  // that dies any way at all, SIGKILL included.
  const [file, fileArgs] = existsSync(SETPRIV)
    ? [SETPRIV, ["--pdeathsig", "TERM", "--", "redis-server", ...args]]
    : ["redis-server", args];
  const child: ChildProcess = spawn(file, fileArgs, {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    if (output.length < 20_000) output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  await new Promise<void>((resolveReady, reject) => {
    child.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") reject(new RunnerError("REDIS_BINARY_MISSING", REDIS_MISSING_HELP));
      else
        reject(
          new RunnerError("REDIS_UNAVAILABLE", `cannot start redis-server: ${err.message}`, { cause: err }),
        );
    });
    const onExit = (code: number | null) =>
      reject(
        new RunnerError(
          "REDIS_UNAVAILABLE",
          output.includes("Address already in use")
            ? `cannot start a local redis-server: 127.0.0.1:${port} (the port of redis.url) is taken. To use the Redis listening there, set REDIS_URL=redis://127.0.0.1:${port}; else set redis.url to a free port`
            : `redis-server exited (code ${code}) before it was ready; is port ${port} taken?\n${output.slice(-2000)}`,
        ),
      );
    child.once("exit", onExit);
    const onData = () => {
      if (!output.includes("Ready to accept connections")) return;
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
      resolveReady();
    };
    child.stdout?.on("data", onData);
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    dataDir: dir,
    ...(stale === undefined ? {} : { staleStopped: stale }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((done) => child.once("exit", () => done()));
      const client = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0 });
      client.on("error", () => undefined);
      try {
        await client.connect();
        // SHUTDOWN flushes the AOF; the server exits on its own.
        await client.call("SHUTDOWN").catch(() => undefined);
      } catch {
        child.kill("SIGTERM");
      } finally {
        client.disconnect();
      }
      await exited;
    },
  };
}
