import type { Cluster, Redis } from "ioredis";
import { type RedisOutageCondition, redisOutageOf } from "../shared/index.js";

const RIDDEN = Symbol("echo-runner.outageRider");

/** One outage as the rider saw it. */
export interface RedisOutage {
  readonly condition: RedisOutageCondition;
  /** Redis's own words for the first refusal (e.g. "OOM command not allowed …"). */
  readonly message: string;
  /** When the first command was refused, ms since the epoch. */
  readonly since: number;
}

/** Options of {@link rideRedisOutages}. */
export interface OutageRiderOptions {
  /**
   * How long one outage is waited out, ms (`execution.redis_outage_seconds` × 1000). A command
   * refused after that fails as it would without the rider. 0: nothing is waited out.
   */
  budgetMs: number;
  /** The first refusal of an outage (one call per outage, not per command). */
  onStart?: (outage: RedisOutage) => void;
  /** A refused command went through again: the outage is over, after `waitedMs`. */
  onEnd?: (outage: RedisOutage, waitedMs: number) => void;
  /** The budget ran out: commands refused from now on fail (the next refusal starts a new outage). */
  onGiveUp?: (outage: RedisOutage) => void;
  /** First back-off between two sends of a refused command, ms (doubles up to `maxDelayMs`). Default 100. */
  minDelayMs?: number;
  /** Longest back-off, ms. Default 2000. */
  maxDelayMs?: number;
  /**
   * How long Redis must take commands before an outage counts as over, ms. Default 2000: a Redis at
   * its memory limit lets a write through whenever expiring keys free a little, and refuses the next
   * one; that is one outage, not two.
   */
  settleMs?: number;
  now?: () => number;
}

/** The rider of one connection: what it is waiting out now, if anything. */
export interface OutageRider {
  current(): RedisOutage | undefined;
}

/** The parts of an ioredis Command the rider uses. */
interface SentCommand {
  name: string;
  [RIDDEN]?: true;
  inTransaction?: boolean;
  reject: (err: Error) => void;
  resolve: (value: unknown) => unknown;
}

type SendCommand = (command: SentCommand, stream?: unknown) => unknown;

/** Commands that wait by design, or end the connection: never sent twice. */
const NOT_RESENT = new Set([
  "blpop",
  "brpop",
  "brpoplpush",
  "blmove",
  "bzpopmin",
  "bzpopmax",
  "xread",
  "xreadgroup",
  "wait",
  "quit",
  "subscribe",
  "psubscribe",
  "multi",
  "exec",
]);

/**
 * Makes a connection wait out a Redis that refuses work for a while (OOM, MISCONF, LOADING,
 * READONLY, BUSY, TRYAGAIN: {@link redisOutageOf}) instead of failing: a refused command is sent
 * again, with back-off, until Redis takes it or the outage has lasted `budgetMs`. Its caller just
 * sees a slow command, so a run's claim, its tool call and its completion stay one sequence — a
 * completion is never lost to a refusal, which would leave an effect that did happen in doubt.
 * Redis refuses before running a command, so sending it again cannot apply it twice. Commands in a
 * pipeline or transaction (their order matters) and blocking commands are left as they are. A lost
 * connection is ioredis' own business (commands are held and re-sent on reconnect); the rider only
 * reports it as an outage. Installed once per connection (each node of a cluster).
 */
export function rideRedisOutages(client: Redis | Cluster, options: OutageRiderOptions): OutageRider {
  const now = options.now ?? Date.now;
  const minDelay = options.minDelayMs ?? 100;
  const maxDelay = options.maxDelayMs ?? 2000;
  const settleMs = options.settleMs ?? 2000;
  let outage: RedisOutage | undefined;
  let settling: ReturnType<typeof setTimeout> | undefined;

  const stopSettling = () => {
    if (settling !== undefined) clearTimeout(settling);
    settling = undefined;
  };
  const start = (condition: RedisOutageCondition, message: string) => {
    if (outage) {
      stopSettling(); // refused again before it settled: the same outage goes on
      return outage;
    }
    outage = { condition, message, since: now() };
    options.onStart?.(outage);
    return outage;
  };
  const end = () => {
    if (!outage || settling !== undefined) return;
    const over = outage;
    const waitedMs = now() - over.since;
    settling = setTimeout(() => {
      settling = undefined;
      if (outage !== over) return;
      outage = undefined;
      options.onEnd?.(over, waitedMs);
    }, settleMs);
    settling.unref?.();
  };

  const ride = (redis: Redis) => {
    const target = redis as unknown as { sendCommand: SendCommand; [RIDDEN]?: true };
    if (target[RIDDEN]) return;
    target[RIDDEN] = true;
    const send = target.sendCommand.bind(redis) as SendCommand;
    target.sendCommand = (command, stream) => {
      if (stream === undefined && !command.inTransaction && !NOT_RESENT.has(command.name)) {
        watch(command, send);
      }
      return send(command, stream);
    };
    redis.on("close", () => {
      if (redis.status !== "end") start("connection", "the connection to Redis closed");
    });
    redis.on("ready", () => {
      if (outage?.condition === "connection") end();
    });
  };

  const watch = (command: SentCommand, send: SendCommand) => {
    // ioredis sends a command again itself after a reconnect: it is watched once.
    if (command[RIDDEN]) return;
    command[RIDDEN] = true;
    const reject = command.reject;
    const resolve = command.resolve;
    let tries = 0;
    command.reject = (err: Error) => {
      const condition = redisOutageOf(err);
      if (condition === undefined || condition === "connection" || options.budgetMs <= 0) {
        reject(err);
        return;
      }
      const current = start(condition, err.message);
      if (now() - current.since >= options.budgetMs) {
        if (outage === current) {
          stopSettling();
          outage = undefined;
          options.onGiveUp?.(current);
        }
        reject(err);
        return;
      }
      const base = Math.min(maxDelay, minDelay * 2 ** tries);
      tries++;
      const delay = base * (0.8 + Math.random() * 0.4);
      setTimeout(() => send(command), delay);
    };
    command.resolve = (value: unknown) => {
      if (tries > 0) end();
      return resolve(value);
    };
  };

  if ("nodes" in client && typeof client.nodes === "function") {
    const cluster = client as Cluster;
    for (const node of cluster.nodes()) ride(node);
    cluster.on("+node", (node: Redis) => ride(node));
  } else ride(client as Redis);
  return { current: () => outage };
}
