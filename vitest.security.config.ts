import { defineConfig } from "vitest/config";

/**
 * `npm run test:security`: the security suite. New suites live in test/security/**, which
 * the default config excludes, so `npm test` does not run the heavy fuzzing twice in CI. The attack
 * tests of the approvals issue stay next to the code they test and are listed here by path: they
 * are fast (seconds), so running them in both suites costs little and keeps one copy of each.
 */
const APPROVAL_ATTACK_TESTS = [
  // forged token, another request's token and nonce, used token, expired, GET/HEAD on the decision
  // URL, POST without token or nonce, cancelled run, 20 concurrent POSTs, failed tokens throttled per request
  "src/http/approvals/approval-routes.test.ts",
  // One person racing their own votes over the API, their link and /admin counts once
  // (fails without the decide script's already_voted); removed approvers and rotated tokens decide nothing
  "src/http/self-quorum-race.test.ts",
  "src/http/current-approvers.test.ts",
  // token hashed at rest, single use, another request's token, expiry, 20 racing decisions
  "src/approvals/approval-tokens.test.ts",
  "src/approvals/link-tokens.test.ts",
  // second decision refused, required approvals, self-approval, deadline, changed arguments
  "src/approvals/approval-store.test.ts",
  "src/approvals/executable-check.test.ts",
  "src/approvals/parked-call.test.ts",
  // a removed job's pending approvals are cancelled
  "test/integration/cancel-run.test.ts",
  // the gate never lets a dangerous call run unattended; tightening never allows more
  "src/gate/approval-gate.property.test.ts",
  // web_fetch connects only to the checked addresses (no second DNS lookup) and never follows a
  // redirect to an internal address: the end-to-end half of the SSRF fuzz's rebinding test
  "src/tools/web/web-fetch.test.ts",
];

export default defineConfig({
  test: {
    include: ["test/security/**/*.test.ts", ...APPROVAL_ATTACK_TESTS],
    exclude: ["node_modules/**"],
    globalSetup: ["test/helpers/build-setup.ts", "test/helpers/global-setup.ts"],
    testTimeout: 120_000,
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
