import type { ToolDescriptor } from "../catalog/index.js";
import type { EchoRunnerConfig } from "../config/index.js";
import type { GateConfig } from "../gate/index.js";
import {
  EXEC_MODE_BY_PERMISSION_MODE,
  type JobToolSubset,
  SESSION_PERMISSION_MODES,
  type SessionPermissionMode,
  strictestOf,
  type ToolPolicyInput,
} from "../policy/index.js";
import type { DeepReadonly } from "../shared/index.js";

type Config = DeepReadonly<EchoRunnerConfig>;

/**
 * The session mode a run gets: the stricter of the configured default and what the job asks for.
 * A job can tighten its session, never loosen it past the config.
 */
export function effectiveSessionMode(
  config: Config,
  requested?: SessionPermissionMode,
): SessionPermissionMode {
  const modes: SessionPermissionMode[] = [config.execution.session_mode];
  if (requested) modes.push(requested);
  return strictestOf(SESSION_PERMISSION_MODES, modes) ?? "read-only";
}

/** Inputs of the policy layers from config, for the given candidate tools and run. */
export function policyInputFromConfig(
  config: Config,
  run: {
    tools: readonly ToolDescriptor[];
    sessionMode?: SessionPermissionMode;
    jobSubsets?: readonly JobToolSubset[];
  },
): ToolPolicyInput {
  return {
    tools: run.tools,
    profile: config.tools.profile,
    // The config loader already unioned every source's deny list and applied later-wins to allow lists.
    lists: [
      {
        label: "config",
        allow: config.tools.allow,
        alsoAllow: config.tools.also_allow,
        deny: config.tools.deny,
      },
    ],
    securityProfile: config.security.profile,
    networkPolicy: config.execution.network_policy,
    allowedHosts: config.execution.allowed_hosts,
    sessionMode: effectiveSessionMode(config, run.sessionMode),
    restrictToWorkspace: config.tools.restrict_to_workspace,
    jobSubsets: run.jobSubsets ?? [],
    deferred: config.tools.deferred,
  };
}

/** Gate settings from config, for a run in the given session mode. */
export function gateConfigFromConfig(config: Config, sessionMode: SessionPermissionMode): GateConfig {
  const approval = config.permissions.approval;
  return {
    autoApprove: approval.auto_approve,
    trustedChannels: approval.trusted_channels,
    cliAutoApprove: approval.cli_auto_approve,
    mode: approval.mode,
    unattendedPolicy: approval.unattended_policy,
    smartModelConfigured: approval.smart_model !== "" && approval.smart_model in config.models,
    elevated: {
      enabled: config.permissions.elevated.enabled,
      allowFrom: config.permissions.elevated.allow_from,
    },
    adminUsers: config.permissions.admin_users,
    execSecurity: config.tools.exec.security,
    execAsk: config.tools.exec.ask,
    execHost: config.tools.exec.host,
    sessionExecMode: EXEC_MODE_BY_PERMISSION_MODE[sessionMode],
  };
}
