import ipaddr from "ipaddr.js";
import { z } from "zod";
import {
  EXEC_HOSTS,
  type ExecHost,
  RISK_LEVELS,
  TOOL_PROFILES,
  WEB_SEARCH_PROVIDERS,
} from "../catalog/index.js";
import { LOG_FORMATS, LOG_LEVELS } from "../logging/index.js";
import {
  APPROVAL_MODES,
  EXEC_ASK_MODES,
  EXEC_SECURITY_LEVELS,
  NETWORK_POLICIES,
  SECURITY_PROFILES,
  SESSION_PERMISSION_MODES,
  TOOL_EXECUTION_MODES,
  toolGroupProblem,
  UNATTENDED_POLICIES,
} from "../policy/index.js";
import {
  ALERT_KINDS,
  CATCH_UP_POLICIES,
  CHAT_WEBHOOK_FORMATS,
  hasHiddenCharacters,
  IN_DOUBT_POLICIES,
  normaliseIdentity,
  OVERLAP_POLICIES,
} from "../shared/index.js";
import { checkAlertReferences } from "./alert-checks.js";
import { checkIdentitiesAndWebhooks } from "./identity-checks.js";
import { checkConfigReferences } from "./reference-checks.js";
import { InternalWebhookAllowEntry } from "./webhook-targets.js";

/**
 * The schema of config.yaml. Every object is strict (an unknown key is an error: a typo must never
 * silently drop a deny list) and no field has a default: the built-in values live in
 * config/default.yaml, which is one more visible source, so nothing falls back silently.
 */

export {
  CATCH_UP_POLICIES,
  EXEC_HOSTS,
  type ExecHost,
  IN_DOUBT_POLICIES,
  LOG_FORMATS,
  LOG_LEVELS,
  OVERLAP_POLICIES,
};
/**
 * `execution.durability`: standard warns at start when Redis may lose acknowledged writes in a
 * machine crash (AOF off, or appendfsync weaker than always); strict refuses to start then.
 */
export const DURABILITY_MODES = ["standard", "strict"] as const;
/** `execution.workspace_layer`: whether a sandboxed run works on a copy-on-write layer (docs/SANDBOX.md). */
export const WORKSPACE_LAYER_MODES = ["auto", "required", "off"] as const;
export const MODEL_PROVIDERS = ["openai", "anthropic", "scripted"] as const;

const toolName = z.string().min(1).max(128);
const toolList = z.array(toolName);
const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");
const port = z.number().int().min(1).max(65535);
/** A port to listen on: 0 lets the system pick a free one (approval links then use the bound port). */
const listenPort = z.number().int().min(0).max(65535);
const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();
const httpUrl = z.url({ protocol: /^https?$/ });

/** An IPv4 / IPv6 address or CIDR range (`10.0.0.0/8`, `::1`): a reverse proxy `http.trust_proxy` trusts. */
const proxyAddress = z
  .string()
  .refine((value) => ipaddr.isValid(value) || (value.includes("/") && ipaddr.isValidCIDR(value)), {
    error: (issue) =>
      `must be an IP address or CIDR range (e.g. 10.0.0.0/8, ::1), got ${JSON.stringify(issue.input)}`,
  });

/** An operator-written safe-bin profile (the guard module compiles and checks it; see src/guard/SAFE_BINS.md). */
const SafeBinProfileConfig = z.strictObject({
  flags: z.array(z.string().min(1)).optional(),
  value_flags: z.array(z.string().min(1)).optional(),
  two_value_flags: z.array(z.string().min(1)).optional(),
  denied_flags: z.array(z.string().min(1)).optional(),
  numeric_flag: z.boolean().optional(),
  min_positional: nonNegativeInt.optional(),
  max_positional: nonNegativeInt.optional(),
  path_operands: z.boolean().optional(),
  denied_operand_words: z.array(z.string().min(1)).optional(),
});

const McpServerConfig = z.union([
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env_from: z.record(z.string(), envVarName).optional(),
    risk: z.enum(RISK_LEVELS).optional(),
  }),
  z.strictObject({ url: httpUrl, token_env: envVarName.optional(), risk: z.enum(RISK_LEVELS).optional() }),
]);

/**
 * A person who decides: gets the approval mails (`email`), and uses the JSON API and `/admin` with a
 * token of their own (`token_env` names the environment variable that holds it; at least 32
 * characters, checked when the HTTP server starts). Ids name people: no invisible characters, and no
 * two ids equal after normalisation (case, spacing, Unicode width).
 */
/** A chat webhook of an approver: its format, the env var holding its URL, and whether it is personal. */
const ChatWebhookConfig = z.strictObject({
  format: z.enum(CHAT_WEBHOOK_FORMATS),
  url_env: envVarName,
  /** true: read by this approver only, so it carries their personal link. Default false (a channel). */
  personal: z.boolean().optional(),
});

const ApproverConfig = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(128)
    .refine((id) => !hasHiddenCharacters(id) && normaliseIdentity(id).length > 0, {
      message: "must be a visible name: no control, invisible or direction-changing characters",
    }),
  email: z.email().optional(),
  token_env: envVarName.optional(),
  /** Shorthand for a channel webhook `{ format: slack, url_env: <this> }`. */
  slack_webhook_env: envVarName.optional(),
  chat_webhooks: z.array(ChatWebhookConfig).optional(),
  /**
   * Their Slack member id (Profile → ⋮ → Copy member ID, e.g. U024BE7LH): a click on Approve / Deny
   * in Slack by this user decides as this approver. Slack's ids are upper-case ASCII, so no two can
   * look alike; two approvers may not share one (checked with the other identities).
   */
  slack_user_id: z
    .string()
    .regex(/^[UW][A-Z0-9]{2,31}$/, "a Slack member id: U or W and 2-31 upper-case letters or digits")
    .optional(),
});

/** `""` = none (a key that is not needed, a feature that is off). */
const optionalEnvVar = z.union([z.literal(""), envVarName]);
const optionalHttpUrl = z.union([z.literal(""), httpUrl]);

/** An OpenAI-compatible media endpoint; `base_url: ""` = not configured (the tool says so). */
const MediaEndpointConfig = z
  .strictObject({ base_url: optionalHttpUrl, model: z.string(), api_key_env: optionalEnvVar })
  .refine((e) => e.base_url === "" || e.model !== "", {
    message: "a media endpoint with a base_url needs a model",
    path: ["model"],
  });

/** A webhook that message and notify may POST to (the body is signed with the secret when set). */
const WebhookConfig = z.strictObject({ url: httpUrl, secret_env: optionalEnvVar });

/** USD per million tokens; `cached_input` is the price of prompt tokens read from the provider's cache. */
const ModelPrice = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cached_input: z.number().nonnegative().optional(),
});

/** What every provider shares: the context window (tokens), output limit and price used by budgets. */
const modelLimits = {
  context_window: positiveInt.max(10_000_000).optional(),
  max_output_tokens: positiveInt.max(1_000_000).optional(),
  price: ModelPrice.optional(),
};

const ModelConfig = z.discriminatedUnion("provider", [
  z.strictObject({
    provider: z.literal("openai"),
    base_url: httpUrl,
    model: z.string().min(1),
    api_key_env: envVarName,
    timeout_seconds: positiveInt.optional(),
    ...modelLimits,
  }),
  z.strictObject({
    provider: z.literal("anthropic"),
    base_url: httpUrl,
    model: z.string().min(1),
    api_key_env: envVarName,
    timeout_seconds: positiveInt.optional(),
    ...modelLimits,
  }),
  z.strictObject({ provider: z.literal("scripted"), script: z.string().min(1), ...modelLimits }),
]);

/** Run budgets shared by agents and schedules; a run stops with budget_exhausted at the first one reached. */
const runBudgetKeys = {
  max_input_tokens: positiveInt.optional(),
  max_output_tokens: positiveInt.optional(),
  max_cost_usd: z.number().positive().optional(),
  max_wall_seconds: positiveInt.optional(),
};

/** `agents.<name>`: also the shape of an agent file (`echo-runner run`) and a schedule file's inline agent. */
export const AgentConfigSchema = z.strictObject({
  model: z.string().min(1),
  // A run's payload carries the task; more than it takes would fail every run at enqueue.
  task: z.string().min(1).max(100_000),
  allowed_tools: toolList.optional(),
  max_steps: positiveInt.max(10_000).optional(),
  workspace: z.string().min(1),
  session_mode: z.enum(SESSION_PERMISSION_MODES).optional(),
  context_budget: positiveInt.min(1000).max(10_000_000).optional(),
  /** Characters the results of one tool type may take together per turn (replaces the default exec/process budgets). */
  live_output_chars: z.record(toolName, positiveInt.min(200).max(1_000_000)).optional(),
  ...runBudgetKeys,
});
export type AgentEntry = z.infer<typeof AgentConfigSchema>;

/**
 * A personal webhook carries one approver's link, so its variable may be declared by that approver
 * only, and never also as a channel (where the link would reach everyone in it).
 */
function checkChatWebhooks(approvers: z.infer<typeof ApproverConfig>[], ctx: z.RefinementCtx): void {
  const uses = new Map<string, { personal: Set<string>; channel: boolean }>();
  approvers.forEach((approver, i) => {
    const hooks = [
      ...(approver.slack_webhook_env ? [{ url_env: approver.slack_webhook_env, personal: false }] : []),
      ...(approver.chat_webhooks ?? []),
    ];
    for (const hook of hooks) {
      const use = uses.get(hook.url_env) ?? { personal: new Set<string>(), channel: false };
      if (hook.personal) use.personal.add(approver.id);
      else use.channel = true;
      uses.set(hook.url_env, use);
      if (use.personal.size > 1 || (use.personal.size > 0 && use.channel)) {
        ctx.addIssue({
          code: "custom",
          path: [i],
          message: `the webhook in ${hook.url_env} is declared personal: it may belong to one approver only and never be a channel too (a personal link must reach only its approver)`,
        });
      }
    }
  });
}

const ScheduleConfig = z.strictObject({
  id: z.string().regex(/^[a-zA-Z0-9_.-]{1,64}$/, "letters, digits, _ . - (1-64 characters)"),
  cron: z.string().min(1),
  timezone: z.string().min(1),
  agent: z.string().min(1),
  // The policies default as every schedule's do (the scheduler's Schedule: overlap skip, catch_up
  // latest, no jitter, enabled), so a config schedule, `schedules add` and a cronjob call agree.
  overlap: z.enum(OVERLAP_POLICIES).optional(),
  catch_up: z.enum(CATCH_UP_POLICIES).optional(),
  catch_up_max: positiveInt.max(1000).optional(),
  jitter_seconds: nonNegativeInt.max(3600).optional(),
  enabled: z.boolean().optional(),
  owner: z.string().min(1),
  /** Cron authorisation from the operator's file; absent is not authorised. */
  authorized: z.boolean().optional(),
  ...runBudgetKeys,
  max_daily_cost_usd: z.number().positive().optional(),
});

/**
 * `alerts:` — who hears of failed runs, expired approvals, failing and missed schedules, and how
 * storms are gathered into digests (see config/default.yaml for each key's meaning).
 */
const AlertsConfig = z.strictObject({
  on: z.array(z.enum(ALERT_KINDS)).max(ALERT_KINDS.length),
  owner: z.boolean(),
  approvers: z.array(z.string().min(1).max(128)).max(256),
  chat_webhooks: z
    .array(z.strictObject({ format: z.enum(CHAT_WEBHOOK_FORMATS), url_env: envVarName }))
    .max(32),
  schedule_failures: positiveInt.max(1000),
  gather_seconds: nonNegativeInt.max(3600),
  digest_window_seconds: nonNegativeInt.max(86_400),
});

const ConfigObject = z.strictObject({
  tools: z.strictObject({
    profile: z.enum(TOOL_PROFILES),
    allow: toolList,
    also_allow: toolList,
    deny: toolList,
    deferred: toolList,
    restrict_to_workspace: z.boolean(),
    execution: z.enum(TOOL_EXECUTION_MODES),
    safe_write_root: z.string(),
    exec: z.strictObject({
      security: z.enum(EXEC_SECURITY_LEVELS),
      ask: z.enum(EXEC_ASK_MODES),
      host: z.enum(EXEC_HOSTS),
      sandbox: z.strictObject({
        uid: positiveInt.max(2_147_483_646),
        cpu_seconds: positiveInt,
        memory_mb: positiveInt,
        max_processes: positiveInt,
        file_size_mb: positiveInt,
        open_files: positiveInt,
        tmp_mb: positiveInt,
      }),
      safe_bins: z.record(z.string().regex(/^[a-zA-Z0-9_.+-]+$/, "a binary name"), SafeBinProfileConfig),
    }),
    credentials: z.record(
      toolName,
      z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a credential name"), envVarName),
    ),
    mcp: z.strictObject({
      servers: z.record(z.string().regex(/^[a-zA-Z0-9_-]+$/, "letters, digits, _ and -"), McpServerConfig),
    }),
    web: z.strictObject({
      search: z.strictObject({
        provider: z.enum(["none", ...WEB_SEARCH_PROVIDERS]),
        endpoint: optionalHttpUrl,
        api_key_env: envVarName,
      }),
    }),
    media: z.strictObject({
      vision: MediaEndpointConfig,
      image: MediaEndpointConfig,
      tts: MediaEndpointConfig,
    }),
    skills: z.strictObject({ dir: z.string() }),
    messaging: z
      .strictObject({
        allowed_recipients: z.array(
          z
            .string()
            .regex(
              /^(webhook:[a-zA-Z0-9_-]+|@[^@\s]+\.[^@\s]+|[^@\s]+@[^@\s]+\.[^@\s]+)$/,
              "an email address, @domain or webhook:<name>",
            ),
        ),
        webhooks: z.record(z.string().regex(/^[a-zA-Z0-9_-]+$/, "letters, digits, _ and -"), WebhookConfig),
        notify_webhook: z.string(),
      })
      .refine((m) => m.notify_webhook === "" || m.notify_webhook in m.webhooks, {
        message: 'must name a webhook of tools.messaging.webhooks (or be "" for none)',
        path: ["notify_webhook"],
      }),
  }),
  permissions: z.strictObject({
    approval: z.strictObject({
      auto_approve: toolList,
      trusted_channels: z.array(z.string().min(1)),
      cli_auto_approve: z.boolean(),
      mode: z.enum(APPROVAL_MODES),
      unattended_policy: z.enum(UNATTENDED_POLICIES),
      wait_timeout_seconds: positiveInt.max(30 * 24 * 3600),
      wait_timeout_by_risk: z.partialRecord(z.enum(RISK_LEVELS), positiveInt.max(30 * 24 * 3600)),
      wait_timeout_by_channel: z.record(z.string().min(1), positiveInt.max(30 * 24 * 3600)),
      smart_model: z.string(),
      forbid_self_approval: z.boolean(),
      required_approvals: z.record(z.string().min(1), positiveInt.max(10)),
      reminder_before_seconds: nonNegativeInt,
      escalate_after_minutes: nonNegativeInt.max(30 * 24 * 60),
      escalate_to: z.array(z.string().min(1)).max(64),
      allow_always_ttl_days: positiveInt.max(3650),
    }),
    elevated: z.strictObject({
      enabled: z.boolean(),
      allow_from: z.record(z.string().min(1), z.array(z.string().min(1))),
    }),
    admin_users: z.array(z.string().min(1)),
  }),
  security: z.strictObject({ profile: z.enum(SECURITY_PROFILES) }),
  execution: z.strictObject({
    network_policy: z.enum(NETWORK_POLICIES),
    allowed_hosts: z.array(z.string().min(1)),
    session_mode: z.enum(SESSION_PERMISSION_MODES),
    max_steps: positiveInt.max(10_000),
    in_doubt_policy: z.enum(IN_DOUBT_POLICIES),
    durability: z.enum(DURABILITY_MODES),
    redis_outage_seconds: nonNegativeInt.max(86_400),
    worker_concurrency: positiveInt.max(1000),
    network_probe: z.strictObject({
      targets: z.array(z.string().regex(/^(\[[^\]]+\]|[^:[\]]+):\d{1,5}$/, "host:port")),
      timeout_ms: positiveInt.max(60_000),
    }),
    max_child_depth: nonNegativeInt.max(10),
    max_children_per_run: nonNegativeInt.max(1000),
    workspace_layer: z.enum(WORKSPACE_LAYER_MODES),
    layer_retention_days: positiveInt.max(3650),
    disk_mb: nonNegativeInt.max(10_000_000),
  }),
  redis: z.strictObject({
    url: z.url({ protocol: /^rediss?$/ }),
    key_prefix: z.string().regex(/^[a-zA-Z0-9_:-]{1,32}$/, "letters, digits, _ : - (1-32 characters)"),
    cluster_nodes: z
      .array(z.string().regex(/^(\[[0-9a-fA-F:]+\]|[^:\s[\]]+):\d{1,5}$/, "host:port, e.g. 10.0.0.5:7000"))
      .max(64),
  }),
  http: z.strictObject({
    host: z.string().min(1),
    port: listenPort,
    public_url: httpUrl,
    api_token_env: envVarName,
    trust_proxy: z.array(proxyAddress).max(256),
    failure_limit: z.strictObject({
      window_seconds: positiveInt.max(3600),
      per_source: positiveInt.max(100_000),
      global: positiveInt.max(10_000_000),
      per_link: positiveInt.max(100_000),
    }),
  }),
  smtp: z.strictObject({
    host: z.string(),
    port,
    secure: z.boolean(),
    user: z.string(),
    password_env: envVarName,
    from: z.string().min(3),
  }),
  approvers: z.array(ApproverConfig).superRefine((list, ctx) => {
    const seen = new Map<string, number>();
    list.forEach((approver, i) => {
      const key = normaliseIdentity(approver.id);
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [i, "id"],
          message: `names the same person as approvers[${first}] ("${list[first]?.id}"): ids are compared ignoring case, spacing and Unicode width`,
        });
      } else seen.set(key, i);
      const tokenEnv = approver.token_env;
      const other = tokenEnv ? list.findIndex((a, j) => j < i && a.token_env === tokenEnv) : -1;
      if (other >= 0) {
        ctx.addIssue({
          code: "custom",
          path: [i, "token_env"],
          message: `is also the token of approvers[${other}]: every person needs a token of their own`,
        });
      }
    });
    checkChatWebhooks(list, ctx);
  }),
  alerts: AlertsConfig,
  notifications: z.strictObject({
    digest_window_seconds: nonNegativeInt.max(86_400),
    allow_internal_webhooks: z.array(InternalWebhookAllowEntry).max(256),
    slack: z.strictObject({ signing_secret_env: optionalEnvVar }),
  }),
  operator: z.string(),
  models: z.record(z.string().min(1), ModelConfig),
  agents: z.record(z.string().min(1), AgentConfigSchema),
  schedules: z.array(ScheduleConfig),
  retention: z.strictObject({
    journal_days: positiveInt.max(3650),
    audit_days: positiveInt.max(36500),
    finished_jobs: nonNegativeInt,
  }),
  logging: z.strictObject({ level: z.enum(LOG_LEVELS), format: z.enum(LOG_FORMATS) }),
});

/** The tool lists that may name groups (`group:<section>`, `group:mcp:<server>`). */
const TOOL_GROUP_LISTS = ["allow", "also_allow", "deny", "deferred"] as const;

/** The whole config: its keys, plus checks across keys. */
export const EchoRunnerConfigSchema = ConfigObject.superRefine((config, ctx) => {
  // A group in a tool list must name a catalog section or a configured MCP server: an unknown
  // one would match nothing, and a deny that silently denies nothing is a hole.
  const servers = Object.keys(config.tools.mcp.servers);
  for (const list of TOOL_GROUP_LISTS) {
    config.tools[list].forEach((entry, index) => {
      const problem = toolGroupProblem(entry, servers);
      if (problem) ctx.addIssue({ code: "custom", path: ["tools", list, index], message: problem });
    });
  }
  checkIdentitiesAndWebhooks(config, ctx);
  checkConfigReferences(config, ctx);
  checkAlertReferences(config, ctx);
});

/** The validated, merged configuration (deep-frozen once loaded). */
export type EchoRunnerConfig = z.infer<typeof EchoRunnerConfigSchema>;

/**
 * Keys whose value is the strictest any source sets (loosest first in each order), and the order.
 * Paths are dotted config paths.
 */
export const SECURITY_ORDERED_KEYS = {
  "security.profile": SECURITY_PROFILES,
  "execution.network_policy": NETWORK_POLICIES,
  "permissions.approval.unattended_policy": UNATTENDED_POLICIES,
  "permissions.approval.mode": APPROVAL_MODES,
  "tools.exec.security": EXEC_SECURITY_LEVELS,
  "tools.exec.ask": EXEC_ASK_MODES,
  "execution.session_mode": SESSION_PERMISSION_MODES,
} as const satisfies Record<string, readonly string[]>;

/** Dotted paths of the lists that are the union over all sources (every deny list). */
export const UNION_LIST_KEYS = ["tools.deny"] as const;
