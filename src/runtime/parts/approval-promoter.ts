import type { Cluster, Redis } from "ioredis";
import type { ApprovalStore } from "../../approvals/index.js";
import type { Logger } from "../../logging/index.js";
import { type Promoter, startPromoter } from "../../queue/index.js";

/** Options for {@link startApprovalPromoter}. */
export interface ApprovalPromoterOptions {
  /** The process's connection: the promoter's queue calls go through it. */
  connection: Redis | Cluster;
  keyPrefix: string;
  /** The approval store over `reader`, the promoter's own connection (XREAD BLOCK holds it). */
  store: (reader: Redis | Cluster) => ApprovalStore;
  logger: Logger;
}

/**
 * Moves parked jobs back to work as soon as their approval is decided, whichever process decided
 * it (page, API, CLI, expiry): every final decision is on the approvals event stream, read on from
 * the position the last promoter saved; at start, parked runs decided meanwhile are woken too.
 */
export function startApprovalPromoter(options: ApprovalPromoterOptions): Promoter {
  const { connection, logger } = options;
  const reader = connection.duplicate();
  reader.on("error", () => undefined); // reported by the main connection's handler
  const store = options.store(reader);
  return startPromoter({
    connection,
    keyPrefix: options.keyPrefix,
    readEvents: (after, blockMs) => store.readEvents(after, { blockMs }),
    position: {
      load: () => store.promoterPosition(),
      save: (streamId) => store.savePromoterPosition(streamId),
    },
    decidedSince: (runs) => store.decidedSince(runs),
    interrupt: () => reader.disconnect(),
    onReadFailed: (err) => logger.warn({ err: err.message }, "approval promoter: read failed; retrying"),
    onScanned: (woken) => {
      if (woken > 0) logger.info({ woken }, "approval promoter: woke runs decided while no worker ran");
    },
  });
}
