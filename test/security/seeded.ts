/**
 * Seeds and iteration counts of the security suite. Every random case is drawn from a seeded PRNG
 * and every assertion names the seed and the case, so a failure can be replayed exactly:
 * `SECURITY_SEED=<seed> npm run test:security`. Without SECURITY_SEED each suite uses its fixed seed
 * (CI stays deterministic); `SECURITY_SEED=random` draws a fresh one and prints it.
 */
import { prng } from "../../src/guard/fuzz-generators.fixture.js";

export { prng };

const drawn = process.env.SECURITY_SEED === "random" ? (Date.now() ^ (process.pid << 16)) >>> 0 : undefined;

/** The seed of one suite: SECURITY_SEED as given, a drawn seed plus the suite's, or the suite's fixed seed. */
export function suiteSeed(name: string, fixed: number): number {
  const env = process.env.SECURITY_SEED;
  let seed = fixed;
  if (drawn !== undefined) seed = (drawn + fixed) >>> 0;
  else if (env !== undefined && env !== "") {
    const parsed = Number(env);
    if (!Number.isInteger(parsed))
      throw new Error(`SECURITY_SEED must be an integer or "random", not ${env}`);
    seed = parsed >>> 0;
  }
  if (drawn !== undefined) console.log(`security suite ${name}: seed ${seed}`);
  return seed;
}

/** An iteration count from the environment (e.g. GUARD_FUZZ_ITERATIONS), else the default. */
export function iterations(envName: string, fallback: number): number {
  const raw = process.env[envName];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${envName} must be a positive integer, not ${raw}`);
  return n;
}

/** Picks one item. */
export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

/** A random subset (each item with probability p). */
export function subset<T>(rand: () => number, items: readonly T[], p = 0.4): T[] {
  return items.filter(() => rand() < p);
}
