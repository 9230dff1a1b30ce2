import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { PACKAGE_CONFIG_DIR } from "../../../config/index.js";
import { demoWorkspace } from "../shared/index.js";

/** The files the demo agent finds in its workspace on first start. */
const DEMO_WORKSPACE_TEMPLATE = join(PACKAGE_CONFIG_DIR, "demo-workspace");

/** The variable config/demo.yaml names as the demo approver's own token (`token_env`). */
export const DEMO_ADMIN_TOKEN_ENV = "ECHO_DEMO_ADMIN_TOKEN";

/** A fresh operator token for one demo start: 32 random bytes, base64url (43 characters). */
export function demoAdminToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The demo's schedule id (config/demo.yaml). */
export const DEMO_SCHEDULE = "demo-report";

/** Creates the demo workspace and copies in the template files it lacks (never overwrites). */
export async function prepareDemoWorkspace(dataDir: string): Promise<string> {
  const dir = demoWorkspace(dataDir);
  await mkdir(dir, { recursive: true });
  for (const name of await readdir(DEMO_WORKSPACE_TEMPLATE)) {
    const target = join(dir, name);
    if (!existsSync(target)) await copyFile(join(DEMO_WORKSPACE_TEMPLATE, name), target);
  }
  return dir;
}

/**
 * What `start` prints on the terminal when the demo is in use: what runs, how to sign in to /admin
 * (`adminToken`: the token made for this start; null when the operator set their own), and how to
 * switch to a configuration of one's own.
 */
export function demoBanner(workspace: string, publicUrl: string, adminToken: string | null): string {
  const admin = `${publicUrl.replace(/\/$/, "")}/admin`;
  const signIn =
    adminToken === null
      ? [
          `  - /admin (runs, approvals, cancel/retry/rerun): sign in at ${admin} with the token in ${DEMO_ADMIN_TOKEN_ENV}`,
        ]
      : [
          `  - /admin (runs, approvals, cancel/retry/rerun): sign in at ${admin} as demo-approver`,
          `    with this start's one-time operator token: ${adminToken}`,
          `    (made for this start only; set ${DEMO_ADMIN_TOKEN_ENV} to choose your own)`,
        ];
  return [
    "",
    "DEMO MODE: using the demo configuration config/demo.yaml, because no configuration of your",
    "own was given (--config FILE, ECHO_RUNNER_CONFIG=FILE, or config/echo-runner.yaml).",
    `  - schedule "${DEMO_SCHEDULE}" runs a scripted agent every minute in ${workspace}`,
    "  - it lists and reads files, writes report.md, is denied a cronjob (dangerous, unattended),",
    "    parks for a person's approval before an exec, and delegates a check to a sub-agent",
    `  - the approval mail and its link are printed here (no smtp.host set); pages at ${publicUrl}`,
    ...signIn,
    `  - fire it now instead of waiting for the minute: npx echo-runner schedules run-now ${DEMO_SCHEDULE}`,
    "To run your own agents: copy config/demo.yaml to config/echo-runner.yaml and edit it (every key",
    "and its default is in config/default.yaml), or pass --config FILE.",
    "",
    "",
  ].join("\n");
}
