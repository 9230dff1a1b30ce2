import type { CliCommand } from "../io.js";
import { approvalsApproveCommand, approvalsDenyCommand } from "./approvals-decide.js";
import { approvalsGrantsListCommand, approvalsGrantsRevokeCommand } from "./approvals-grants.js";
import { approvalsListCommand } from "./approvals-list.js";
import { approvalsShowCommand } from "./approvals-show.js";
import { auditListCommand } from "./audit-list.js";
import { auditVerifyCommand } from "./audit-verify.js";
import { configCheckCommand } from "./config-check.js";
import { configShowCommand } from "./config-show.js";
import { doctorCommand } from "./doctor.js";
import { gateCheckCommand } from "./gate-check.js";
import { guardArgvCommand } from "./guard-argv.js";
import { guardCommandCommand } from "./guard-command.js";
import { guardPathCommand } from "./guard-path.js";
import { guardUrlCommand } from "./guard-url.js";
import { jobsCancelCommand, jobsRerunCommand, jobsRetryCommand } from "./jobs-actions.js";
import { jobsListCommand } from "./jobs-list.js";
import { jobsShowCommand } from "./jobs-show.js";
import { policyExplainCommand } from "./policy-explain.js";
import { runCommand } from "./run.js";
import { runsDiffCommand, runsDiscardCommand, runsLandCommand, runsLayersCommand } from "./runs-layers.js";
import { schedulesAddCommand } from "./schedules-add.js";
import { schedulesListCommand } from "./schedules-list.js";
import { schedulesNextCommand } from "./schedules-next.js";
import { schedulesPauseCommand, schedulesResumeCommand } from "./schedules-pause.js";
import { schedulesRemoveCommand } from "./schedules-remove.js";
import { schedulesRevokeCommand } from "./schedules-revoke.js";
import { schedulesRunNowCommand } from "./schedules-run-now.js";
import { schedulesShowCommand } from "./schedules-show.js";
import { schedulerCommand, serveCommand, startCommand, workerCommand } from "./start.js";
import { toolsListCommand } from "./tools-list.js";

/**
 * Every CLI command, one file each under commands/. Add a command by adding its file and one line
 * here. Longer word lists are matched first.
 */
export const COMMANDS: readonly CliCommand[] = [
  configCheckCommand,
  configShowCommand,
  doctorCommand,
  startCommand,
  workerCommand,
  schedulerCommand,
  serveCommand,
  runCommand,
  approvalsListCommand,
  approvalsShowCommand,
  approvalsApproveCommand,
  approvalsDenyCommand,
  approvalsGrantsListCommand,
  approvalsGrantsRevokeCommand,
  jobsListCommand,
  jobsShowCommand,
  jobsCancelCommand,
  jobsRetryCommand,
  jobsRerunCommand,
  auditListCommand,
  auditVerifyCommand,
  runsLayersCommand,
  runsDiffCommand,
  runsLandCommand,
  runsDiscardCommand,
  policyExplainCommand,
  toolsListCommand,
  gateCheckCommand,
  guardCommandCommand,
  guardArgvCommand,
  guardUrlCommand,
  guardPathCommand,
  schedulesListCommand,
  schedulesShowCommand,
  schedulesNextCommand,
  schedulesAddCommand,
  schedulesPauseCommand,
  schedulesResumeCommand,
  schedulesRemoveCommand,
  schedulesRevokeCommand,
  schedulesRunNowCommand,
];
