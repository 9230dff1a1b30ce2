import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["test/chaos/**", "test/security/**", "node_modules/**"],
    globalSetup: ["test/helpers/build-setup.ts", "test/helpers/global-setup.ts"],
    testTimeout: 30_000,
    // expect.poll's own default gives up after 1 s: a state reached through Redis, another process
    // or a socket can take longer than that on a loaded 2-core CI machine. A poll returns as soon as
    // it holds, so only a failing test waits the longer timeout.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the CPUs: one worker on a 2-core CI machine, where
    // most test time is waiting on Redis, child processes and sockets. Two halve the wall time.
    maxWorkers: 2,
  },
});
