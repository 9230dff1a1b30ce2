import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { REPO_ROOT } from "./cli-process.js";

/** Debian's Chromium (apt-get install chromium); CHROMIUM_PATH overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Flags for a quiet, sandbox-less headless Chromium in CI containers (no network of its own). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;

/** Where tests save screenshots (gitignored). */
export const ARTIFACTS_DIR = join(REPO_ROOT, "test-artifacts");

/**
 * Launches headless Chromium through playwright-core. A missing browser is a failure with the fix,
 * never a skip: the approval page must be tested in a real browser.
 */
export async function launchChromium(executablePath = CHROMIUM_PATH): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium is not installed at ${executablePath}; the approval-page browser tests need it. ` +
        "Install it with `apt-get install -y chromium` (.ci/run does this) or set CHROMIUM_PATH.",
    );
  }
  return chromium.launch({
    executablePath,
    args: [...CHROMIUM_ARGS],
    headless: true,
    timeout: 30_000,
  });
}

/** The path of a screenshot file under {@link ARTIFACTS_DIR}, creating the directory. */
export async function artifactPath(name: string): Promise<string> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  return join(ARTIFACTS_DIR, name);
}
