import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "./free-port.js";

/** util-linux's setpriv, which starts the server with a parent-death signal. */
const SETPRIV = "/usr/bin/setpriv";

/** Options for {@link startRedisServer}. */
export interface RedisServerOptions {
  /** Data directory; a new temp dir when omitted. Reused by {@link RedisServerProcess.restart}. */
  dir?: string;
  /** Port; a free one when omitted. Kept across restarts. */
  port?: number;
  /** `always` makes every acknowledged write survive SIGKILL (crash tests); default `always`. */
  appendfsync?: "always" | "everysec";
}

/**
 * A real `redis-server` child process with AOF on, in its own temp dir, for tests. Crash tests
 * SIGKILL it and start it again from the same AOF.
 */
export class RedisServerProcess {
  readonly port: number;
  readonly dir: string;
  readonly url: string;
  #child: ChildProcess | undefined;
  #ownsDir: boolean;
  #appendfsync: "always" | "everysec";

  private constructor(port: number, dir: string, ownsDir: boolean, appendfsync: "always" | "everysec") {
    this.port = port;
    this.dir = dir;
    this.url = `redis://127.0.0.1:${port}`;
    this.#ownsDir = ownsDir;
    this.#appendfsync = appendfsync;
  }

  static async start(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
    const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "echo-runner-redis-")));
    const port = options.port ?? (await freePort());
    const server = new RedisServerProcess(
      port,
      dir,
      options.dir === undefined,
      options.appendfsync ?? "always",
    );
    await server.#spawn();
    return server;
  }

  /** The pid of the running server, or undefined when it is down. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async #spawn(): Promise<void> {
    const args = [
      "--port",
      String(this.port),
      "--bind",
      "127.0.0.1",
      "--dir",
      this.dir,
      "--appendonly",
      "yes",
      "--appendfsync",
      this.#appendfsync,
      "--save",
      "",
      "--maxmemory-policy",
      "noeviction",
      "--daemonize",
      "no",
    ];
    // A parent-death signal, as the runner's own server has: a test run that is interrupted or
    // killed (Ctrl+C, SIGKILL of vitest) takes its redis-server with it instead of leaving it running.
    const [file, fileArgs] = existsSync(SETPRIV)
      ? [SETPRIV, ["--pdeathsig", "TERM", "--", "redis-server", ...args]]
      : ["redis-server", args];
    const child = spawn(file, fileArgs, { stdio: ["ignore", "pipe", "pipe"] });
    this.#child = child;
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      if (output.length < 20_000) output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (output.length < 20_000) output += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`redis-server exited with ${code} before it was ready:\n${output}`));
      child.once("error", (err) =>
        reject(
          new Error(
            `cannot start redis-server (${err.message}); install it (apt-get install redis-server) or set REDIS_URL`,
          ),
        ),
      );
      child.once("exit", onExit);
      const onData = () => {
        if (output.includes("Ready to accept connections")) {
          child.stdout?.off("data", onData);
          child.off("exit", onExit);
          resolve();
        }
      };
      child.stdout?.on("data", onData);
    });
  }

  /** Kills the server with SIGKILL (no shutdown, no final fsync) and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await exited;
    this.#child = undefined;
  }

  /** Starts the server again on the same port from the same data dir (and so the same AOF). */
  async restart(): Promise<void> {
    await this.kill();
    await this.#spawn();
  }

  /** Shuts the server down cleanly and removes its temp dir when it made one. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (child && child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      try {
        await client.connect();
        await client.call("SHUTDOWN", "NOSAVE").catch(() => undefined);
      } catch {
        child.kill("SIGKILL");
      } finally {
        client.disconnect();
      }
      await exited;
    }
    this.#child = undefined;
    if (this.#ownsDir) await rm(this.dir, { recursive: true, force: true });
  }
}

/** Starts a fresh Redis for a test (see {@link RedisServerProcess}). */
export function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
  return RedisServerProcess.start(options);
}
