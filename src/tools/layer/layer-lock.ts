import { createHash } from "node:crypto";
import { createServer, type Server } from "node:net";
import { RunnerError } from "../../shared/index.js";

/**
 * One process at a time works on a layer. Two overlay mounts sharing an upper folder are undefined
 * behaviour in the kernel, and a landing must not read an upper folder that another process still
 * writes. The lock is an abstract Unix socket named for the layer's folder: binding it is exclusive
 * on the host (per network namespace), and the kernel lets it go when the process ends however it
 * ends, so a crashed worker never leaves a stale lock behind and nothing has to judge one.
 */
export interface LayerLock {
  release(): void;
}

function socketName(folder: string): string {
  return `\0echo-runner/layer/${createHash("sha256").update(folder).digest("hex").slice(0, 40)}`;
}

/** Takes the lock of the layer in `folder`, or undefined when another process holds it. */
export function tryLockLayer(folder: string): Promise<LayerLock | undefined> {
  return new Promise((resolve, reject) => {
    const server: Server = createServer((socket) => socket.destroy());
    server.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EADDRINUSE") resolve(undefined);
      else reject(err);
    });
    server.listen({ path: socketName(folder) }, () => {
      // The lock must not keep a worker alive that has nothing else to do.
      server.unref();
      resolve({ release: () => server.close() });
    });
  });
}

/** {@link tryLockLayer}, failing with WORKSPACE_LAYER_BUSY when another process holds the lock. */
export async function lockLayer(folder: string, runId: string): Promise<LayerLock> {
  const lock = await tryLockLayer(folder);
  if (lock !== undefined) return lock;
  throw new RunnerError(
    "WORKSPACE_LAYER_BUSY",
    `run ${runId}'s layer is in use by another process on this host (another worker running a run of the same tree, or a landing); the run waits for it`,
    { data: { runId } },
  );
}
