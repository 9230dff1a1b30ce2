import { randomInt } from "node:crypto";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    chaosSeed: number;
  }
}

/**
 * One seed for the whole chaos run (CHAOS_SEED, or a fresh one), given to every file, so one printed
 * number replays every random choice of the suite: `CHAOS_SEED=<n> npm run test:chaos`.
 */
export function setup(project: TestProject): void {
  const fromEnv = process.env.CHAOS_SEED;
  const seed = fromEnv ? Number(fromEnv) : randomInt(1, 1_000_000);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`CHAOS_SEED must be a whole number, not ${fromEnv}`);
  console.info(`[chaos] suite seed ${seed}; replay with CHAOS_SEED=${seed} npm run test:chaos`);
  project.provide("chaosSeed", seed);
}
