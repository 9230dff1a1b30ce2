import { defineConfig } from "vitest/config";

// The fault-injection suite (`npm run test:chaos`, docs/RELIABILITY.md). Every scenario starts its
// own redis-server, worker and HTTP processes and kills some of them, so files run one at a time:
// in parallel they would compete for the 2 CI cores and turn timeouts into noise.
export default defineConfig({
  test: {
    include: ["test/chaos/**/*.test.ts"],
    globalSetup: ["test/helpers/build-setup.ts", "test/helpers/chaos-seed-setup.ts"],
    testTimeout: 300_000,
    // expect.poll's own default gives up after 1 s: a state reached through Redis, another process
    // or a socket can take longer than that on a loaded 2-core CI machine. A poll returns as soon as
    // it holds, so only a failing test waits the longer timeout.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 240_000,
    pool: "forks",
    fileParallelism: false,
  },
});
