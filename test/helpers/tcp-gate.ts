import { createConnection, createServer, type Server, type Socket } from "node:net";
import { freePort } from "./free-port.js";

/**
 * A TCP forwarder on a fixed port of 127.0.0.1 to a target port, which a test can close (the port
 * refuses connections, as a server that is down does) and open again on the same port. Clients keep
 * one address across the outage, as they keep one SMTP host in config.
 */
export interface TcpGate {
  readonly port: number;
  readonly isOpen: boolean;
  /** Stops listening and cuts every forwarded connection. */
  close(): Promise<void>;
  /** Listens again on the same port. */
  open(): Promise<void>;
}

/** Options for {@link startTcpGate}. */
export interface TcpGateOptions {
  /**
   * Forward requests but hold every reply back (never deliver it): the client's request arrives and
   * takes effect, and the answer is lost when the gate closes, as when a server dies after acting.
   */
  holdReplies?: boolean;
}

export async function startTcpGate(targetPort: number, options: TcpGateOptions = {}): Promise<TcpGate> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection({ host: "127.0.0.1", port: targetPort });
        sockets.add(client);
        sockets.add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on("error", drop).on("close", drop);
        upstream.on("error", drop).on("close", drop);
        client.pipe(upstream);
        if (!options.holdReplies) upstream.pipe(client);
        else upstream.resume();
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        server = s;
        resolve();
      });
    });
  await open();
  return {
    port,
    get isOpen() {
      return server !== undefined;
    },
    open,
    close() {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      return new Promise((resolve) => (s ? s.close(() => resolve()) : resolve()));
    },
  };
}
