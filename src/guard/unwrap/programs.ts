/** Closed sets of program names the guard's rules share. */

/** Programs that only print or test their arguments; a path among them is text, not a read. */
export const TEXT_ONLY_PROGRAMS = new Set([
  "echo",
  "printf",
  "true",
  "false",
  ":",
  "test",
  "[",
  "[[",
  "type",
  "which",
  "hash",
  "whereis",
  "command",
]);

/** Programs that fetch from the network (a script they print is a remote script). */
export const DOWNLOADERS = new Set([
  "curl",
  "wget",
  "fetch",
  "aria2c",
  "http",
  "https",
  "xh",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "lwp-download",
  "lwp-request",
  "ftp",
  "tftp",
  "scp",
  "sftp",
  "rsync",
  "git",
  "invoke-webrequest",
  "iwr",
  "irm",
]);

/** Shell programs (their `-c` argument and stdin are scripts). */
export const SHELL_PROGRAMS = new Set([
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "ash",
  "yash",
  "fish",
  "rbash",
  "csh",
  "tcsh",
  "busybox-sh",
]);

const INTERPRETER =
  /^(python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|deno|bun|php[\d.]*|lua[\d.]*|luajit|tclsh|osascript|pwsh|powershell|rscript|jshell|groovy|scala|irb|source|\.)$/;

/** True for programs that run code they are given (shells, python, node, perl, ...). */
export function isInterpreter(name: string): boolean {
  return SHELL_PROGRAMS.has(name) || INTERPRETER.test(name);
}
