import type { EchoRunnerConfig } from "../../../config/index.js";
import type { DeepReadonly } from "../../../shared/index.js";
import { type DoctorCheck, ok, warn } from "./doctor-check.js";

/**
 * Every schedule's owner is told when a run stops at a budget, by mail to the `approvers` entry with
 * the owner's id. A schedule whose owner has no entry would stop unseen: warn about it.
 */
export function checkScheduleOwners(config: DeepReadonly<EchoRunnerConfig>): DoctorCheck {
  const ids = new Set(config.approvers.map((a) => a.id));
  const orphaned = config.schedules.filter((s) => !ids.has(s.owner));
  if (orphaned.length === 0) {
    return ok("owners", `${config.schedules.length} schedule(s), each owner has an approvers entry`);
  }
  return warn(
    "owners",
    `schedule(s) ${orphaned.map((s) => `${s.id} (owner ${s.owner})`).join(", ")} have an owner with no approvers entry: a run that stops at a budget notifies nobody (only the log)`,
    "add { id: <owner>, email: … } to approvers for each schedule owner",
  );
}
