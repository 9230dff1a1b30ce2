import type { CliCommand } from "../io.js";
import {
  approvalsApproveCommand,
  approvalsDenyCommand,
  approvalsGrantsListCommand,
  approvalsGrantsRevokeCommand,
  approvalsListCommand,
  approvalsShowCommand,
} from "./approvals/index.js";
import { auditListCommand, auditVerifyCommand } from "./audit/index.js";
import { configCheckCommand, configShowCommand } from "./config/index.js";
import { doctorCommand } from "./doctor/index.js";
import { guardArgvCommand, guardCommandCommand, guardPathCommand, guardUrlCommand } from "./guard/index.js";
import {
  jobsCancelCommand,
  jobsListCommand,
  jobsRerunCommand,
  jobsRetryCommand,
  jobsShowCommand,
} from "./jobs/index.js";
import { gateCheckCommand, policyExplainCommand } from "./policy/index.js";
import { runCommand } from "./run/index.js";
import { runsDiffCommand, runsDiscardCommand, runsLandCommand, runsLayersCommand } from "./runs/index.js";
import {
  schedulesAddCommand,
  schedulesListCommand,
  schedulesNextCommand,
  schedulesPauseCommand,
  schedulesRemoveCommand,
  schedulesResumeCommand,
  schedulesRevokeCommand,
  schedulesRunNowCommand,
  schedulesShowCommand,
} from "./schedules/index.js";
import { schedulerCommand, serveCommand, startCommand, workerCommand } from "./start/index.js";
import { toolsListCommand } from "./tools/index.js";

/**
 * Every CLI command, one file each in the sub-folder of its noun under commands/ (helpers several
 * nouns use in shared/). Add a command by adding its file, exporting it from its folder's index.ts,
 * and one line here. Longer word lists are matched first.
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
