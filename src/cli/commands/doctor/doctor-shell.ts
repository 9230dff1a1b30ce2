import { BASH_CANDIDATES, locateBash } from "../../../tools/index.js";
import { type DoctorCheck, fail, ok } from "./doctor-check.js";

/** The shell exec-class tools run commands with: bash's path and version, or a failure. */
export function checkShell(): DoctorCheck {
  const bash = locateBash();
  if (bash === undefined) {
    return fail(
      "shell",
      `bash was not found at ${BASH_CANDIDATES.join(", ")}: exec, execute_code and process run commands only with bash (the grammar the command guard parses), never /bin/sh`,
      "install bash (apt-get install bash)",
    );
  }
  return ok("shell", `bash ${bash.path} (${bash.version}), started with --noprofile --norc`);
}
