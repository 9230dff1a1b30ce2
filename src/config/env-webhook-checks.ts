import { RunnerError } from "../shared/index.js";
import { originsOf } from "./merge.js";
import { type ConfigProblem, formatProblems } from "./problems.js";
import type { WebhookCheckInput } from "./webhook-checks.js";
import { webhookTargetProblem } from "./webhook-targets.js";

/** Every chat webhook of every approver, with the config path of the key naming its variable. */
function chatHooks(input: WebhookCheckInput) {
  return input.approvers.flatMap((approver, i) => [
    ...(approver.slack_webhook_env
      ? [
          {
            approver: i,
            path: `approvers.${i}.slack_webhook_env`,
            env: approver.slack_webhook_env,
            personal: false,
          },
        ]
      : []),
    ...(approver.chat_webhooks ?? []).map((hook, k) => ({
      approver: i,
      path: `approvers.${i}.chat_webhooks.${k}.url_env`,
      env: hook.url_env,
      personal: hook.personal === true,
    })),
  ]);
}

/**
 * The approvers' chat webhooks, whose URLs live in environment variables (they are secrets), so
 * they are checked where the environment is known: each URL must be https to a public host (they
 * carry approval links) unless `notifications.allow_internal_webhooks` lists it, and a personal
 * webhook is one person's chat identity, so its URL may not also be another approver's webhook or
 * a channel. `alerts.chat_webhooks` are checked for internal addresses too. An unset variable is
 * not a problem here (start-up names it). Messages never repeat a
 * URL: its path is the credential.
 */
export function envWebhookProblems(
  input: WebhookCheckInput,
  env: NodeJS.ProcessEnv,
  origins: ReadonlyMap<string, readonly string[]>,
): ConfigProblem[] {
  const allow = input.notifications.allow_internal_webhooks;
  const problems: ConfigProblem[] = [];
  const byUrl = new Map<string, { approver: number; env: string; personal: boolean }[]>();
  for (const hook of chatHooks(input)) {
    const raw = env[hook.env];
    if (raw === undefined || raw === "") continue;
    const problem = webhookTargetProblem(raw, { carriesLinks: true, allow });
    if (problem)
      problems.push({
        path: hook.path,
        message: `"${hook.env}": the webhook URL in this variable ${problem}`,
        origins: originsOf(origins, hook.path),
      });
    const key = URL.canParse(raw) ? new URL(raw).href : raw;
    const earlier = byUrl.get(key) ?? [];
    // The same variable declared twice is checkChatWebhooks' finding in the schema; here only
    // different variables holding one URL are new.
    const clash = earlier.find(
      (e) => e.env !== hook.env && e.approver !== hook.approver && (e.personal || hook.personal),
    );
    if (clash) {
      const other = input.approvers[clash.approver]?.id;
      problems.push({
        path: hook.path,
        message: `"${hook.env}" holds the same webhook URL as ${clash.env} of approvers[${clash.approver}] ("${other}"), and one of them is personal: a personal webhook is one approver's chat identity and carries their link, so it may reach that approver only; allowed: a webhook URL of this approver's own`,
        origins: originsOf(origins, hook.path),
      });
    }
    byUrl.set(key, [...earlier, hook]);
  }
  (input.alerts?.chat_webhooks ?? []).forEach((hook, k) => {
    const raw = env[hook.url_env];
    if (raw === undefined || raw === "") return;
    // Alerts carry /admin links, which need a sign-in, not approval tokens: plain http is allowed.
    const problem = webhookTargetProblem(raw, { carriesLinks: false, allow });
    const path = `alerts.chat_webhooks.${k}.url_env`;
    if (problem)
      problems.push({
        path,
        message: `"${hook.url_env}": the webhook URL in this variable ${problem}`,
        origins: originsOf(origins, path),
      });
  });
  return problems;
}

/** Throws CONFIG_INVALID listing every problem of {@link envWebhookProblems}. */
export function assertEnvWebhooks(
  input: WebhookCheckInput,
  env: NodeJS.ProcessEnv,
  origins: ReadonlyMap<string, readonly string[]>,
): void {
  const problems = envWebhookProblems(input, env, origins);
  if (problems.length === 0) return;
  throw new RunnerError(
    "CONFIG_INVALID",
    `the configuration has ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${formatProblems(problems)}`,
    { data: { problems } },
  );
}
