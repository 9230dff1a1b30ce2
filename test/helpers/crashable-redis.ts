import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "./free-port.js";
import { fsyncedLengths } from "./fsync-trace.js";

/** What {@link CrashableRedis.crash} took from the AOF. */
export interface CrashReport {
  /** Bytes of AOF written but not yet fsynced at the kill, dropped as a power loss would. */
  readonly droppedBytes: number;
}

/**
 * A real redis-server (AOF on, `appendfsync` as asked) run under strace, so a test can simulate a
 * machine crash honestly: {@link crash} SIGKILLs the server and then cuts every AOF file back to the
 * length it had at its last fsync that returned ({@link fsyncedLengths}) — the writes the kernel
 * had only in its page cache are what a power loss or VM reset takes, and nothing more is taken.
 * With `always` Redis fsyncs before it replies, so nothing acknowledged is dropped; with `everysec`
 * up to about the last second is. strace stops the server only at write and fsync calls
 * (`--seccomp-bpf`); AOF rewrites are off so the AOF stays one growing file.
 */
export class CrashableRedis {
  readonly port: number;
  readonly dir: string;
  readonly url: string;
  readonly #appendfsync: "always" | "everysec";
  #exited: Promise<void> = Promise.resolve();
  #pid = 0;
  #initial = new Map<string, number>();
  #life = 0;

  private constructor(port: number, dir: string, appendfsync: "always" | "everysec") {
    this.port = port;
    this.dir = dir;
    this.url = `redis://127.0.0.1:${port}`;
    this.#appendfsync = appendfsync;
  }

  static async start(appendfsync: "always" | "everysec"): Promise<CrashableRedis> {
    const server = new CrashableRedis(
      await freePort(),
      await mkdtemp(join(tmpdir(), "echo-crash-redis-")),
      appendfsync,
    );
    await server.#spawn();
    return server;
  }

  get #trace(): string {
    return join(this.dir, `strace-${this.#life}.txt`);
  }

  async #aofFiles(): Promise<string[]> {
    const aofDir = join(this.dir, "appendonlydir");
    const names = await readdir(aofDir).catch(() => [] as string[]);
    return names.filter((n) => n.endsWith(".aof")).map((n) => join(aofDir, n));
  }

  async #spawn(): Promise<void> {
    this.#life++;
    // What is on disk when the server starts is what survived: the trace counts on from there.
    this.#initial = new Map();
    for (const file of await this.#aofFiles()) this.#initial.set(file, (await stat(file)).size);
    const child = spawn(
      "strace",
      [
        ...["-f", "-y", "-s", "0", "-qq", "--seccomp-bpf", "-e", "trace=write,fsync,fdatasync"],
        ...["-o", this.#trace, "redis-server"],
        ...["--port", String(this.port), "--bind", "127.0.0.1", "--dir", this.dir],
        ...["--appendonly", "yes", "--appendfsync", this.#appendfsync, "--save", ""],
        ...["--auto-aof-rewrite-percentage", "0", "--maxmemory-policy", "noeviction"],
        ...["--daemonize", "no"],
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    this.#exited = new Promise((done) => child.once("exit", () => done()));
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`redis-server under strace exited (${code}) before it was ready:\n${output}`));
      child.once("exit", onExit);
      child.once("error", (err) => reject(new Error(`cannot start strace (${err.message})`)));
      const collect = (chunk: Buffer) => {
        if (output.length < 20_000) output += chunk.toString();
        if (output.includes("Ready to accept connections")) {
          child.off("exit", onExit);
          resolve();
        }
      };
      child.stdout?.on("data", collect);
      child.stderr?.on("data", collect);
    });
    const client = new Redis(this.url, { maxRetriesPerRequest: 1 });
    try {
      const info = await client.info("server");
      this.#pid = Number(/process_id:(\d+)/.exec(info)?.[1] ?? 0);
    } finally {
      client.disconnect();
    }
    if (!this.#pid) throw new Error("redis-server did not say its pid");
  }

  /** SIGKILLs the server now (for a crash of the whole machine, kill the workers in the same tick). */
  kill(): void {
    if (this.#pid) process.kill(this.#pid, "SIGKILL");
    this.#pid = 0;
  }

  /** {@link kill}, then drops every AOF byte not fsynced (see the class); the server is down after. */
  async crash(): Promise<CrashReport> {
    this.kill();
    await this.#exited;
    const synced = fsyncedLengths(await readFile(this.#trace, "utf8"), this.#initial);
    let droppedBytes = 0;
    for (const file of await this.#aofFiles()) {
      const size = (await stat(file)).size;
      const keep = synced.get(file) ?? this.#initial.get(file) ?? 0;
      if (keep > size)
        throw new Error(`${file}: the trace says ${keep} bytes were fsynced, the file has ${size}`);
      if (keep < size) await truncate(file, keep);
      droppedBytes += size - keep;
    }
    await rm(this.#trace, { force: true });
    return { droppedBytes };
  }

  /** Starts the server again on the same port from what is left of the AOF. */
  restart(): Promise<void> {
    return this.#spawn();
  }

  /** Kills the server (nothing of it is needed any more) and removes its directory. */
  async stop(): Promise<void> {
    this.kill();
    await this.#exited;
    await rm(this.dir, { recursive: true, force: true });
  }
}
