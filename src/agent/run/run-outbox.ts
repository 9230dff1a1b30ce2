import type { Journal } from "../../journal/index.js";
import type { AuditSink, OutboxEntry } from "./ports.js";

/** The outbox fields whose entries were delivered, for the next journal script to delete. */
export interface Acknowledgements {
  /** Keys whose result's entry (the execution) was delivered. */
  acknowledge: string[];
  /** Keys whose claim's entry (the gate decision) was delivered. */
  acknowledgeClaims: string[];
}

/** How long a recorded entry may wait for a journal script to go beside before it is sent alone. */
export const MAX_LAG_MS = 250;

/** Where an entry is kept in the run's journal: with the key's claim or with its result. */
interface Stored {
  key: string;
  withClaim: boolean;
}

/**
 * A run's audit entries on their way to the audit trail (docs/DESIGN.md §7, docs/BENCHMARKS.md
 * "CPU per tool call"). A call's gate decision is stored in the run's journal in the same write as
 * its claim, its execution entry in the same write as its result, and both are appended to the
 * trail afterwards while the run goes on: the run waits for no audit write of its own, and nothing
 * a SIGKILL leaves behind loses an entry or doubles it.
 *
 * - Killed before the claim (or the result) is recorded: neither is its entry (the call did not run,
 *   or is in doubt, as it always was).
 * - Killed after it, before the append landed: the entry is in the journal; whoever resumes the
 *   run finds it (JournalSnapshot.claimOutbox and .outbox) and delivers it.
 * - Killed after the append, before the journal heard of it: delivered again, the trail finds the
 *   entry's delivery id among those it appended and writes nothing (AuditTrail.appendOnce).
 *
 * Entries are sent in the order they were recorded, two or more at a time, beside the run's next
 * journal script ({@link beside}): one audit round trip for two entries, and none the run waits for
 * on its own; an entry no script has taken along within {@link MAX_LAG_MS} (a long tool call, a
 * model call) is sent then, so the trail lags the journal by at most that while a run goes on.
 * Everything is delivered before the run ends or parks ({@link settle}). Delivered entries are acknowledged
 * (their journal fields deleted) by the run's next journal script, or at the latest by settle. The
 * journal's and the trail's keys sit in different Redis Cluster slots; this is why the two writes
 * are not one script.
 */
export class RunOutbox {
  readonly #audit: AuditSink;
  readonly #journal: Journal;
  readonly #runId: string;
  /** Entries of calls that ran, until the completion recording their result takes them. */
  readonly #staged = new Map<string, OutboxEntry>();
  /** Entries recorded in the journal and not sent yet, in the order they were recorded. */
  #ready: { stored: Stored; entry: OutboxEntry }[] = [];
  #lagTimer: NodeJS.Timeout | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  #delivered: Acknowledgements = { acknowledge: [], acknowledgeClaims: [] };
  #failure: { error: unknown } | undefined;

  constructor(audit: AuditSink, journal: Journal, runId: string) {
    this.#audit = audit;
    this.#journal = journal;
    this.#runId = runId;
  }

  /** Holds the entry of a call that just ran until the completion of `key` stores it. */
  stage(key: string, entry: OutboxEntry): void {
    this.#staged.set(key, entry);
  }

  /** The staged entry of `key`, for the completion that records the key's result (no longer staged). */
  take(key: string): OutboxEntry | undefined {
    const entry = this.#staged.get(key);
    this.#staged.delete(key);
    return entry;
  }

  /**
   * The journal write that stored `entry` (with the result of `key`, or with its claim when
   * `withClaim`) landed: it is delivered with the next ones (see {@link beside}), without waiting.
   */
  send(key: string, entry: OutboxEntry, withClaim = false): void {
    this.#ready.push({ stored: { key, withClaim }, entry });
    if (this.#lagTimer === undefined) {
      this.#lagTimer = setTimeout(() => this.#dispatch(), MAX_LAG_MS);
      this.#lagTimer.unref();
    }
  }

  /**
   * A journal script is about to be sent: entries waiting to be delivered go beside it once there
   * are two or more, so that they share one audit round trip and the run does not wait for it on
   * its own. True when it sent them (their append goes out on the next microtask).
   */
  beside(): boolean {
    if (this.#ready.length < 2) return false;
    this.#dispatch();
    return true;
  }

  #dispatch(): void {
    clearTimeout(this.#lagTimer);
    this.#lagTimer = undefined;
    const ready = this.#ready;
    this.#ready = [];
    for (const { stored, entry } of ready) {
      const delivery = this.#audit.deliver(entry).then(
        () => {
          if (stored.withClaim) this.#delivered.acknowledgeClaims.push(stored.key);
          else this.#delivered.acknowledge.push(stored.key);
        },
        (error: unknown) => {
          // The entry stays in the journal: the run's next attempt delivers it (settle fails this one).
          this.#failure ??= { error };
        },
      );
      this.#inFlight.add(delivery);
      void delivery.finally(() => this.#inFlight.delete(delivery));
    }
  }

  /**
   * The journal write that was to store `entry` failed, and may or may not have landed (a refused
   * claim, a lost reply): the call ran, or may run, so its entry is appended now, directly. Should
   * the journal hold a copy after all, its later delivery is recognised by the delivery id and
   * writes nothing. Best effort: the caller is already failing with the write's error.
   */
  async sendUnrecorded(entry: OutboxEntry): Promise<void> {
    await this.#audit.deliver(entry).catch(() => undefined);
  }

  /**
   * Appends `entry` now and waits for it: for an entry no journal write stored (a claim that found
   * the key already claimed or completed), before anything acts on it.
   */
  async sendNow(entry: OutboxEntry): Promise<void> {
    await this.#audit.deliver(entry);
  }

  /** Fields delivered since the last call: the next journal script deletes them. */
  acknowledgements(): Acknowledgements {
    const delivered = this.#delivered;
    this.#delivered = { acknowledge: [], acknowledgeClaims: [] };
    return delivered;
  }

  /** Hands acknowledgements back after the journal call carrying them failed. */
  restore(delivered: Acknowledgements): void {
    this.#delivered.acknowledge.push(...delivered.acknowledge);
    this.#delivered.acknowledgeClaims.push(...delivered.acknowledgeClaims);
  }

  /** Sends what is waiting and waits for every delivery in flight; throws the first that failed. */
  async delivered(): Promise<void> {
    this.#dispatch();
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  /**
   * Before the run ends or parks: delivers everything, then deletes the fields of those no journal
   * script has acknowledged yet. Throws the first failed delivery (its entry stays in the journal,
   * and the run's next attempt delivers it).
   */
  async settle(): Promise<void> {
    await this.delivered();
    const delivered = this.acknowledgements();
    try {
      await this.#journal.acknowledge(this.#runId, delivered.acknowledge, delivered.acknowledgeClaims);
    } catch (err) {
      this.restore(delivered);
      throw err;
    }
  }
}

/**
 * Runs a journal write that records the result of `key` (with `entry`, when the call has one, in
 * its outbox field) and carries the outbox's acknowledgements, with the entries waiting to be
 * delivered sent beside it; once it landed, `entry` waits for delivery. If the write fails, the
 * acknowledgements go back and the entry is appended directly (see
 * {@link RunOutbox.sendUnrecorded}) before the error is rethrown.
 */
export async function recordWithOutbox<T>(
  outbox: RunOutbox | undefined,
  key: string,
  entry: OutboxEntry | undefined,
  write: (acknowledged: Acknowledgements) => Promise<T>,
): Promise<T> {
  if (outbox === undefined) return write({ acknowledge: [], acknowledgeClaims: [] });
  // The deliveries go out just before the write, in the same turn: they share its round trip, and
  // their answer comes first (one connection answers in order), so a worker killed as an append
  // lands has not acted on the write's answer yet.
  if (outbox.beside()) await Promise.resolve();
  const acknowledged = outbox.acknowledgements();
  let result: T;
  try {
    result = await write(acknowledged);
  } catch (err) {
    outbox.restore(acknowledged);
    if (entry !== undefined) await outbox.sendUnrecorded(entry);
    throw err;
  }
  if (entry !== undefined) outbox.send(key, entry);
  return result;
}
