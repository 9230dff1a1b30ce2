import { dirname } from "node:path";
import { parseArgs } from "node:util";
import type { LoadedConfig } from "../../../config/index.js";
import { parseClusterNode } from "../../../queue/index.js";
import { isRunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { loadCheckedConfig } from "../config/index.js";
import { cliConfigChoice, dataDirOf, USING_DEMO_CONFIG, wholeNumberOption } from "../shared/index.js";
import { DOCTOR_STATUSES, type DoctorCheck, fail, ok } from "./doctor-check.js";
import { checkWorkspaceLayer } from "./doctor-layers.js";
import { checkPublicUrl, checkSmtp } from "./doctor-mail.js";
import { probeModels } from "./doctor-models.js";
import { checkScheduleOwners } from "./doctor-owners.js";
import { checkRedis } from "./doctor-redis.js";
import { checkSandbox } from "./doctor-sandbox.js";
import { checkShell } from "./doctor-shell.js";
import { checkFailingTargets } from "./doctor-targets.js";
import { checkTools } from "./doctor-tools.js";

const USAGE =
  "echo-runner doctor [--config FILE] [--data-dir DIR] [--timeout SECONDS] [--probe-models] [--json]";
/** Connect timeout of the Redis and SMTP checks when --timeout is not given. */
export const DEFAULT_DOCTOR_TIMEOUT_S = 5;

/** What `doctor --json` prints. */
export interface DoctorReport {
  /** False when any check failed (the exit code is then 1). */
  ok: boolean;
  counts: Record<DoctorCheck["status"], number>;
  checks: DoctorCheck[];
}

const parseTimeout = (text: string | undefined): number =>
  wholeNumberOption("--timeout", text, {
    default: DEFAULT_DOCTOR_TIMEOUT_S,
    min: 1,
    max: 120,
    unit: "seconds",
  }) * 1000;

async function configCheck(
  configPath: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
  dataDir: string,
): Promise<{ check: DoctorCheck; loaded?: LoadedConfig }> {
  try {
    const choice = cliConfigChoice({ env, cwd }, configPath, dataDir);
    const loaded = await loadCheckedConfig(choice.options);
    const files = [
      ...new Set(loaded.sources.filter((s) => s.kind !== "env").map((s) => `${s.kind} ${s.origin}`)),
    ];
    const demo = choice.demo ? `; ${USING_DEMO_CONFIG}` : "";
    return { check: ok("config", `valid (${files.join(", ")})${demo}`), loaded };
  } catch (err) {
    if (!isRunnerError(err) || (err.code !== "CONFIG_INVALID" && err.code !== "CONFIG_FILE_UNREADABLE"))
      throw err;
    return {
      check: fail(
        "config",
        err.message,
        "correct each key named above (`echo-runner config check` lists them; config/default.yaml documents every key); the other checks need a valid config",
      ),
    };
  }
}

/**
 * Everything an operator must get right before trusting the runner with unattended work, checked
 * against the real things: the config, Redis (reachable, version, persistence, eviction), SMTP, the
 * public URL of approval links, and every tool's readiness.
 */
export async function runDoctor(options: {
  configPath: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
  timeoutMs: number;
  /** Send one minimal request to every configured model (`--probe-models`). Default false. */
  probeModels?: boolean;
  /** The data dir `start` uses (where runs' layers are made); default ECHO_RUNNER_DATA_DIR or ./data. */
  dataDir?: string;
}): Promise<DoctorReport> {
  const dataDir = dataDirOf(options.dataDir, options.env, options.cwd);
  const { check, loaded } = await configCheck(options.configPath, options.env, options.cwd, dataDir);
  const checks = [check];
  if (loaded) {
    const { config } = loaded;
    const project = loaded.sources.find((s) => s.kind === "project");
    const url = options.env.REDIS_URL || config.redis.url;
    // On a cluster every seed node is checked as the Redis it is (reachable, AOF, noeviction).
    const redisChecks =
      config.redis.cluster_nodes.length > 0
        ? Promise.all(
            config.redis.cluster_nodes.map((node) =>
              checkRedis({
                url: clusterNodeUrl(url, node),
                source: "redis.cluster_nodes",
                timeoutMs: options.timeoutMs,
                outageSeconds: config.execution.redis_outage_seconds,
              }),
            ),
          ).then((all) => all.flat())
        : checkRedis({
            url,
            source: options.env.REDIS_URL ? "REDIS_URL" : "redis.url",
            timeoutMs: options.timeoutMs,
            outageSeconds: config.execution.redis_outage_seconds,
          });
    const baseDir = project ? dirname(project.origin) : options.cwd;
    const [redis, targets, smtp, tools, sandbox, layer, models] = await Promise.all([
      redisChecks,
      checkFailingTargets(config, url, options.timeoutMs),
      checkSmtp(config, options.env, options.timeoutMs),
      checkTools(config, options.env, baseDir),
      checkSandbox(config, baseDir),
      checkWorkspaceLayer(config, dataDir),
      options.probeModels ? probeModels(config, options.env, options.timeoutMs) : [],
    ]);
    checks.push(
      ...redis,
      ...(targets ? [targets] : []),
      smtp,
      checkPublicUrl(config),
      checkScheduleOwners(config),
      checkShell(),
      sandbox,
      layer,
      ...tools,
      ...models,
    );
  }
  const counts = { ok: 0, warn: 0, fail: 0 };
  for (const c of checks) counts[c.status] += 1;
  return { ok: counts.fail === 0, counts, checks };
}

/** The URL of one cluster seed node, with the scheme and credentials of the configured URL. */
function clusterNodeUrl(url: string, node: string): string {
  const { host, port } = parseClusterNode(node);
  const parsed = new URL(url);
  parsed.hostname = host.includes(":") ? `[${host}]` : host;
  parsed.port = String(port);
  return parsed.toString();
}

function render(report: DoctorReport): string {
  const lines: string[] = [];
  const readyTools = report.checks.filter((c) => c.name.startsWith("tool:") && c.status === "ok");
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const shown = report.checks.filter((c) => !readyTools.includes(c));
  shown.forEach((c, i) => {
    lines.push(
      `${c.status === "ok" ? "ok  " : c.status.toUpperCase()}  ${c.name.padEnd(width)}  ${c.reason}`,
    );
    // Findings in a row with the same fix (unready tools) share one fix line, after the last.
    if (c.fix && shown[i + 1]?.fix !== c.fix) lines.push(`${" ".repeat(width + 8)}fix: ${c.fix}`);
  });
  if (readyTools.length > 0) {
    lines.push(
      `ok    ${"tools".padEnd(width)}  ${readyTools.length} ready: ${readyTools.map((c) => c.name.slice(5)).join(", ")}`,
    );
  }
  const summary = DOCTOR_STATUSES.map((s) => `${report.counts[s]} ${s}`).join(", ");
  lines.push("", report.ok ? `no failures (${summary})` : `FAILED (${summary})`);
  return `${lines.join("\n")}\n`;
}

/** `echo-runner doctor`: exit 0 when no check fails, 1 otherwise. */
export const doctorCommand: CliCommand = {
  words: ["doctor"],
  summary:
    "check config, Redis (reachable, version, AOF, noeviction), SMTP, public URL and every tool's readiness; --probe-models sends one request to each model",
  usage: USAGE,
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        timeout: { type: "string" },
        json: { type: "boolean", default: false },
        "probe-models": { type: "boolean", default: false },
        "data-dir": { type: "string" },
      },
      allowPositionals: false,
    });
    const report = await runDoctor({
      configPath: values.config,
      env: io.env,
      cwd: io.cwd,
      timeoutMs: parseTimeout(values.timeout),
      probeModels: values["probe-models"],
      ...(values["data-dir"] === undefined ? {} : { dataDir: values["data-dir"] }),
    });
    io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : render(report));
    return report.ok ? EXIT.ok : EXIT.failed;
  },
};
