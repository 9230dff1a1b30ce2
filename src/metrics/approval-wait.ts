import type { Cluster, Redis } from "ioredis";
import type { ApprovalStore } from "../approvals/index.js";
import { luaScript } from "../lua/index.js";
import { APPROVAL_WAIT_BUCKETS } from "./families.js";
import type { MetricsKeys } from "./keys.js";

/** Events folded per batch, and batches per scrape (the rest waits for the next scrape). */
const BATCH = 500;
const MAX_BATCHES = 10;

// Compare-and-set on the cursor: of two scrapers folding the same events, one applies them.
const FOLD = luaScript(import.meta.url, "approvalWaitFold-2.lua").lua;

/** One histogram series: per-bucket (not cumulative) counts, sum and count. */
export interface WaitSeries {
  status: string;
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * Folds the approvals' decision events (every final decision, from any process: page, API, CLI,
 * expiry, cancel) into the wait histogram (requested → final). Done on scrape, exactly once per
 * event however many HTTP processes scrape: the cursor only moves by compare-and-set together with
 * the increments.
 */
export async function foldApprovalWaits(
  redis: Redis | Cluster,
  keys: MetricsKeys,
  store: ApprovalStore,
): Promise<void> {
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const cursor = (await redis.get(keys.approvalWaitCursor)) ?? "0";
    const events = await store.readEvents(cursor, { count: BATCH });
    const last = events.at(-1);
    if (!last) return;
    const increments = new Map<string, number>();
    const add = (field: unknown[], by: number) => {
      const key = JSON.stringify(field);
      increments.set(key, (increments.get(key) ?? 0) + by);
    };
    for (const event of events) {
      const record = await store.get(event.id);
      // A record past its retention has gone; its wait is unknown and not guessed.
      if (!record || record.finishedAt === null) continue;
      const seconds = Math.max(0, (record.finishedAt - record.requestedAt) / 1000);
      const le = APPROVAL_WAIT_BUCKETS.find((b) => seconds <= b);
      add([record.status, "b", le === undefined ? "+Inf" : String(le)], 1);
      add([record.status, "sum"], seconds);
      add([record.status, "count"], 1);
    }
    const argv = [...increments].flatMap(([field, by]) => [field, String(by)]);
    const applied = await redis.eval(
      FOLD,
      2,
      keys.approvalWaitCursor,
      keys.approvalWait,
      cursor,
      last.streamId,
      ...argv,
    );
    // Another scraper folded this batch first: read on from where it left the cursor.
    if (applied !== 1) continue;
    if (events.length < BATCH) return;
  }
}

/** Reads the histogram hash into one series per final status. */
export function decodeWaitHistogram(hash: Record<string, string>): WaitSeries[] {
  const series = new Map<string, WaitSeries>();
  const of = (status: string) => {
    let s = series.get(status);
    if (!s) {
      s = { status, buckets: new Array(APPROVAL_WAIT_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      series.set(status, s);
    }
    return s;
  };
  for (const [field, value] of Object.entries(hash)) {
    const parsed = parseField(field);
    const n = Number(value);
    const [status, part, le] = parsed ?? [];
    if (status === undefined || !Number.isFinite(n)) continue;
    if (part === "sum") of(status).sum = n;
    else if (part === "count") of(status).count = n;
    else if (part === "b") {
      const index =
        le === "+Inf"
          ? APPROVAL_WAIT_BUCKETS.length
          : (APPROVAL_WAIT_BUCKETS as readonly number[]).indexOf(Number(le));
      if (index >= 0) of(status).buckets[index] = n;
    }
  }
  return [...series.values()];
}

function parseField(field: string): string[] | null {
  try {
    const parsed: unknown = JSON.parse(field);
    return Array.isArray(parsed) && parsed.every((p) => typeof p === "string") ? parsed : null;
  } catch {
    return null;
  }
}
