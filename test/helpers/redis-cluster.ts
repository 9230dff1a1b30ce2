import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Cluster, Redis } from "ioredis";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** How long the cluster may take to agree on its slots before the test fails (it takes ~1-3 s). */
const CLUSTER_OK_TIMEOUT_MS = 30_000;

/** One master of a {@link RedisClusterProcess}. */
interface ClusterNode {
  port: number;
  child: ChildProcess;
  output: () => string;
}

/**
 * A three-master Redis Cluster of real `redis-server` processes on free loopback ports
 * (`cluster-enabled yes`, AOF on, noeviction), its slots assigned by `redis-cli --cluster create`.
 * For tests that prove the runner works unchanged on a cluster.
 */
export class RedisClusterProcess {
  readonly dir: string;
  readonly #nodes: ClusterNode[];

  private constructor(dir: string, nodes: ClusterNode[]) {
    this.dir = dir;
    this.#nodes = nodes;
  }

  /** `host:port` of every master (the value of `redis.cluster_nodes`). */
  get nodes(): string[] {
    return this.#nodes.map((n) => `127.0.0.1:${n.port}`);
  }

  /** The ports of the masters. */
  get ports(): number[] {
    return this.#nodes.map((n) => n.port);
  }

  static async start(masters = 3): Promise<RedisClusterProcess> {
    const dir = await mkdtemp(join(tmpdir(), "echo-runner-cluster-"));
    const nodes: ClusterNode[] = [];
    const cluster = new RedisClusterProcess(dir, nodes);
    try {
      for (let i = 0; i < masters; i++) nodes.push(await spawnNode(join(dir, `n${i}`)));
      await run(
        "redis-cli",
        ["--cluster", "create", ...cluster.nodes, "--cluster-replicas", "0", "--cluster-yes"],
        { timeout: CLUSTER_OK_TIMEOUT_MS },
      );
      await cluster.#waitClusterOk();
      return cluster;
    } catch (err) {
      await cluster.stop();
      throw err;
    }
  }

  /** Polls every master until each reports `cluster_state:ok` and knows all masters (bounded). */
  async #waitClusterOk(): Promise<void> {
    const deadline = Date.now() + CLUSTER_OK_TIMEOUT_MS;
    let last = "";
    for (;;) {
      let ok = true;
      for (const node of this.#nodes) {
        const client = new Redis(node.port, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 0 });
        try {
          await client.connect();
          const info = String(await client.call("CLUSTER", "INFO"));
          last = info;
          if (
            !info.includes("cluster_state:ok") ||
            !info.includes(`cluster_known_nodes:${this.#nodes.length}`)
          )
            ok = false;
        } catch (err) {
          ok = false;
          last = String(err);
        } finally {
          client.disconnect();
        }
      }
      if (ok) return;
      if (Date.now() > deadline)
        throw new Error(`the Redis Cluster did not reach cluster_state:ok in time:\n${last}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** A connected ioredis Cluster client (BullMQ needs maxRetriesPerRequest null). */
  client(): Cluster {
    return new Cluster(
      this.#nodes.map((n) => ({ host: "127.0.0.1", port: n.port })),
      { redisOptions: { maxRetriesPerRequest: null } },
    );
  }

  /** Keys and CPU seconds used of each master, for reports of how the load spread. */
  async masterStats(): Promise<{ port: number; keys: number; cpuSeconds: number; commands: number }[]> {
    const stats = [];
    for (const node of this.#nodes) {
      const client = new Redis(node.port, "127.0.0.1", { maxRetriesPerRequest: 1 });
      try {
        const info = await client.info();
        const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, "m").exec(info)?.[1] ?? 0);
        const keys = Number(/^db0:keys=(\d+)/m.exec(info)?.[1] ?? 0);
        stats.push({
          port: node.port,
          keys,
          cpuSeconds: field("used_cpu_sys") + field("used_cpu_user"),
          commands: field("total_commands_processed"),
        });
      } finally {
        client.disconnect();
      }
    }
    return stats;
  }

  /** Shuts every master down (SHUTDOWN NOSAVE, SIGKILL when that fails) and removes the temp dir. */
  async stop(): Promise<void> {
    await Promise.all(
      this.#nodes.map(async (node) => {
        if (node.child.exitCode !== null || node.child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => node.child.once("exit", () => resolve()));
        const client = new Redis(node.port, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 0 });
        try {
          await client.connect();
          await client.call("SHUTDOWN", "NOSAVE").catch(() => undefined);
        } catch {
          node.child.kill("SIGKILL");
        } finally {
          client.disconnect();
        }
        const timer = setTimeout(() => node.child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      }),
    );
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function spawnNode(dir: string): Promise<ClusterNode> {
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    join(dir, "nodes.conf"),
    "--cluster-node-timeout",
    "5000",
    "--appendonly",
    "yes",
    "--appendfsync",
    "everysec",
    "--save",
    "",
    "--maxmemory-policy",
    "noeviction",
    "--daemonize",
    "no",
  ];
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    if (output.length < 20_000) output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server on ${port} not ready in 15 s:\n${output}`)),
      15_000,
    );
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`redis-server (cluster node) exited with ${code} before it was ready:\n${output}`));
    };
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(
        new Error(`cannot start redis-server (${err.message}); install it (apt-get install redis-server)`),
      );
    });
    child.once("exit", onExit);
    const onData = () => {
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.off("exit", onExit);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
  });
  return { port, child, output: () => output };
}

/** Starts a fresh three-master cluster for a test (see {@link RedisClusterProcess}). */
export function startRedisCluster(masters = 3): Promise<RedisClusterProcess> {
  return RedisClusterProcess.start(masters);
}

/** CRC16/XMODEM, the hash Redis Cluster maps keys to slots with. */
function crc16(data: Buffer): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The cluster slot of a key, as Redis computes it: of the text between the first `{` and the next
 * `}` when that is non-empty (the hash tag), else of the whole key.
 */
export function keySlot(key: string): number {
  const open = key.indexOf("{");
  if (open !== -1) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) return crc16(Buffer.from(key.slice(open + 1, close))) % 16_384;
  }
  return crc16(Buffer.from(key)) % 16_384;
}

/** One script call a master executed: the script's SHA1 (of its source for EVAL) and its keys. */
export interface ScriptCall {
  sha: string;
  keys: string[];
  port: number;
}

/** The arguments of one MONITOR line (`+1700000000.1 [0 127.0.0.1:5000] "evalsha" "ab…" "1" "k"`). */
export function monitorArgs(line: string): string[] {
  const args: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    args.push(
      (m[1] ?? "").replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, e: string) => {
        if (e.startsWith("x")) return String.fromCharCode(Number.parseInt(e.slice(1), 16));
        return ({ n: "\n", r: "\r", t: "\t", b: "\b", a: "\x07" } as Record<string, string>)[e] ?? e;
      }),
    );
  }
  return args;
}

/**
 * Records every EVAL / EVALSHA every master executes (MONITOR on each, over a plain socket), from
 * any process: the runner under test, worker processes, the CLI. `stop()` ends the monitors.
 */
export async function monitorScripts(
  cluster: RedisClusterProcess,
): Promise<{ calls: ScriptCall[]; stop: () => void }> {
  const calls: ScriptCall[] = [];
  const sockets: Socket[] = [];
  for (const port of cluster.ports) {
    const socket = connect(port, "127.0.0.1");
    sockets.push(socket);
    let buffer = "";
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.write("MONITOR\r\n");
        resolve();
      });
    });
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("latin1");
      let nl = buffer.indexOf("\r\n");
      while (nl !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        nl = buffer.indexOf("\r\n");
        if (!line.startsWith("+") || line === "+OK") continue;
        const args = monitorArgs(line);
        const name = args[0]?.toLowerCase();
        if (name !== "eval" && name !== "evalsha" && name !== "eval_ro" && name !== "evalsha_ro") continue;
        const body = args[1] ?? "";
        const count = Number(args[2] ?? "0");
        const sha = name.startsWith("evalsha")
          ? body
          : createHash("sha1").update(body, "latin1").digest("hex");
        calls.push({ sha, keys: args.slice(3, 3 + count), port });
      }
    });
  }
  return {
    calls,
    stop: () => {
      for (const s of sockets) s.destroy();
    },
  };
}
