import { Job } from "bullmq";
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callKeyOf } from "../../src/agent/run/approval-hash.js";
import { auditKeys, Journal } from "../../src/journal/index.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { ScheduleService, ScheduleStore } from "../../src/scheduler/index.js";
import { testPayload } from "../helpers/agent-harness.js";
import { chaosSeed, prng, repeated, waitAllCompleted, waitFor } from "../helpers/chaos.js";
import {
  approvalsByRun,
  type ChaosStack,
  clickOverHttp,
  linkInMail,
  startChaosStack,
} from "../helpers/chaos-stack.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";

/**
 * Scenario b: redis-server SIGKILLed mid-run, several times, and started again from its AOF
 * (appendfsync always) while a worker and an HTTP server keep running and approvers click. Before
 * each kill the test reads what Redis has acknowledged — jobs, approval requests and decisions,
 * schedules and their grants, journals, audit entries — and after the restart every piece of it is
 * still there, unchanged where it was final; the audit chain verifies. Finally every run finishes,
 * every approval was decided once and no side effect happened twice.
 */

const KILLS = 3;
const RUNS_PER_WAVE = 4;
let stack: ChaosStack;
let smtp: SmtpCapture;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  stack = await startChaosStack({
    approvers: ["alice"],
    smtpPort: smtp.port,
    redis: { appendfsync: "always" },
    script: [
      { tool_calls: [{ name: "write_file", arguments: { path: "a.txt", content: "a" } }] },
      { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
      { tool_calls: [{ name: "write_file", arguments: { path: "b.txt", content: "b" } }] },
      { tool_calls: [{ name: "write_file", arguments: { path: "c.txt", content: "c" } }] },
      { content: "done" },
    ],
  });
  await stack.startHttp();
  await stack.startWorker({ TOOL_DELAY_MS: "5" });
});

afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
});

/** What the test has seen Redis acknowledge: every entry must survive a kill. */
interface Observed {
  jobs: Map<string, string>;
  approvals: Map<string, { status: string; decisions: string }>;
  schedules: string;
  journals: Map<string, string>;
  audit: Map<string, string>;
}

async function observe(runIds: readonly string[], schedules: ScheduleService): Promise<Observed> {
  const { client, queue, store, keyPrefix } = stack;
  const jobs = new Map<string, string>();
  for (const id of runIds) {
    const job = await Job.fromId(queue, id);
    jobs.set(id, job ? await job.getState() : "missing");
  }
  const approvals = new Map<string, { status: string; decisions: string }>();
  for (const record of await store.list({ limit: 1000 })) {
    approvals.set(record.id, { status: record.status, decisions: JSON.stringify(record.decisions) });
  }
  const journal = new Journal({ redis: client, keyPrefix });
  const journals = new Map<string, string>();
  for (const id of runIds) {
    for (const [key, record] of (await journal.readRun(id)).records) {
      if (record.status === "completed") journals.set(`${id}/${key}`, JSON.stringify(record.result));
    }
  }
  const audit = new Map<string, string>();
  const stream = (await client.xrange(auditKeys(keyPrefix).stream, "-", "+")) as [string, string[]][];
  for (const [id, fields] of stream) audit.set(id, fields[fields.indexOf("hash") + 1] ?? "");
  // What is stored (the schedule, its revision and ticks, its grant); `authorization` is computed now.
  const views = (await schedules.list()).map(({ authorization: _computed, ...stored }) => stored);
  return { jobs, approvals, schedules: JSON.stringify(views), journals, audit };
}

/** Everything in `before` is in `after`; final states did not change. Returns what was checked. */
function expectSurvived(before: Observed, after: Observed, kill: number): number {
  const where = `after kill ${kill}`;
  for (const [id, state] of before.jobs) {
    expect(after.jobs.get(id), `job ${id} ${where}`).not.toBe("missing");
    if (state === "completed") expect(after.jobs.get(id), `job ${id} ${where}`).toBe("completed");
  }
  for (const [id, seen] of before.approvals) {
    const now = after.approvals.get(id);
    expect(now, `approval ${id} ${where}`).toBeDefined();
    if (seen.status !== "pending") expect(now, `approval ${id} ${where}`).toEqual(seen);
  }
  expect(after.schedules, `schedules and grants ${where}`).toBe(before.schedules);
  for (const [key, result] of before.journals) {
    expect(after.journals.get(key), `journal ${key} ${where}`).toBe(result);
  }
  for (const [id, hash] of before.audit) expect(after.audit.get(id), `audit ${id} ${where}`).toBe(hash);
  return before.jobs.size + before.approvals.size + 1 + before.journals.size + before.audit.size;
}

/** The newest mail of each pending request (a re-sent mail replaces the older link). */
function newestMail(id: string): ParsedMail | undefined {
  return smtp.messages.filter((m) => (m.text ?? "").includes(id)).at(-1);
}

/** Approves the pending requests with a mail; returns how many clicks were acknowledged. */
async function approvePending(limit: number): Promise<number> {
  let approved = 0;
  for (const record of await stack.store.list({ status: "pending", limit: 1000 })) {
    if (approved >= limit) break;
    const mail = newestMail(record.id);
    if (!mail) continue;
    const click = await clickOverHttp(linkInMail(mail, stack.publicUrl), "approve");
    expect(click.status, click.body.slice(0, 300)).toBe(200);
    approved++;
  }
  return approved;
}

const SCENARIO = "chaos redis-kill";

describe("chaos: Redis killed and restarted from its AOF mid-run", () => {
  it("loses nothing acknowledged: jobs, approvals, schedules, grants, journals, audit entries", async () => {
    const started = Date.now();
    const seed = chaosSeed(SCENARIO);
    const random = prng(seed);
    const schedules = new ScheduleService({
      store: new ScheduleStore({ redis: stack.client, keyPrefix: stack.keyPrefix }),
    });
    for (const [i, human] of [true, true, false].entries()) {
      await schedules.create(
        {
          v: 1,
          id: `nightly-${i}`,
          cron: "0 2 * * *",
          timezone: "UTC",
          agent: { model: "scripted", task: "triage", maxSteps: 10, workspace: stack.dir },
          owner: "ann",
          source: { kind: "cli" },
        },
        human ? { approvalSource: "human", approver: "alice" } : { approvalSource: null },
      );
    }
    const runIds: string[] = [];
    const enqueueWave = async () => {
      for (let i = 0; i < RUNS_PER_WAVE; i++) {
        const payload = testPayload();
        await enqueueAgentRun(stack.queue, payload);
        runIds.push(payload.runId);
      }
    };
    await enqueueWave();
    let checked = 0;
    let clicks = 0;
    const outages: number[] = [];
    for (let kill = 1; kill <= KILLS; kill++) {
      await new Promise((r) => setTimeout(r, 300 + Math.floor(random() * 1500)));
      clicks += await approvePending(2);
      if (kill === 2) await enqueueWave();
      const before = await observe(runIds, schedules);
      const down = Date.now();
      await stack.redis.kill();
      await new Promise((r) => setTimeout(r, 100 + Math.floor(random() * 900)));
      await stack.redis.restart();
      await waitFor(
        "the test's connection to come back",
        async () => ((await stack.client.ping()) === "PONG" ? true : undefined),
        30_000,
      );
      outages.push(Date.now() - down);
      checked += expectSurvived(before, await observe(runIds, schedules), kill);
      await stack.verifyAudit();
    }
    // Approve whatever is still waiting (mails may arrive after the last restart) until all finish.
    await waitFor(
      "every run to finish",
      async () => {
        clicks += await approvePending(1000);
        const states = await Promise.all(
          runIds.map(async (id) => (await Job.fromId(stack.queue, id))?.getState()),
        );
        return states.every((s) => s === "completed") ? true : undefined;
      },
      120_000,
      500,
    );
    await waitAllCompleted(stack.queue, runIds, 1000);

    const counts = await stack.counts();
    expect(repeated(counts), `side effects run twice (seed ${seed})`).toEqual([]);
    const byRun = await approvalsByRun(stack.store);
    const journal = new Journal({ redis: stack.client, keyPrefix: stack.keyPrefix });
    let inDoubt = 0;
    for (const id of runIds) {
      const [request] = byRun.get(id) ?? [];
      expect(request?.status, `approval of ${id}`).toBe("approved");
      expect(request!.decisions).toHaveLength(1);
      const records = (await journal.readRun(id)).records;
      // The approved call ran once — or, when Redis died around its claim, it is recorded in doubt and
      // (not being idempotent) never re-run: at most once, and the journal says which.
      const approvedCall = records.get(callKeyOf(request!.idempotencyKey));
      const approvedInDoubt =
        approvedCall?.status === "completed" &&
        (approvedCall.result as { errorKind?: string } | null)?.errorKind === "in_doubt";
      if (approvedInDoubt) expect(counts.get(callKeyOf(request!.idempotencyKey)) ?? 0).toBeLessThanOrEqual(1);
      else
        expect(counts.get(callKeyOf(request!.idempotencyKey)), `approved call of ${id} (seed ${seed})`).toBe(
          1,
        );
      for (const [key, record] of records) {
        if (key.startsWith("model:")) continue;
        expect(record.status).toBe("completed");
        const result =
          record.status === "completed" ? (record.result as { success: boolean; errorKind?: string }) : null;
        if (result?.success) expect(counts.get(key), `completed call ${key} ran once (seed ${seed})`).toBe(1);
        else {
          expect(result?.errorKind).toBe("in_doubt");
          inDoubt++;
        }
      }
    }
    const views = await schedules.list();
    expect(views.map((v) => v.grant?.approver ?? null)).toEqual(["alice", "alice", null]);
    const entries = await stack.verifyAudit();
    // A real execution is on record once: no audit append was applied twice across reconnects.
    const executions = new Map<string, number>();
    const stream = (await stack.client.xrange(auditKeys(stack.keyPrefix).stream, "-", "+")) as [
      string,
      string[],
    ][];
    for (const [, fields] of stream) {
      const entry = JSON.parse(fields[fields.indexOf("entry") + 1] ?? "{}") as {
        kind: string;
        isReplay?: boolean;
        idempotencyKey?: string;
      };
      if (entry.kind === "execution" && entry.isReplay === false && entry.idempotencyKey)
        executions.set(entry.idempotencyKey, (executions.get(entry.idempotencyKey) ?? 0) + 1);
    }
    expect([...executions.entries()].filter(([, n]) => n > 1)).toEqual([]);
    console.info(
      `[chaos redis-kill] seed ${seed}: ${KILLS} Redis SIGKILLs (outage ${outages.map((ms) => `${ms} ms`).join(", ")}), ` +
        `${runIds.length} runs, ${clicks} approvals clicked; ${checked} acknowledged items checked after restarts, none lost; ` +
        `${inDoubt} calls in doubt (not re-run), 0 twice; ${entries} audit entries verified; ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
