/**
 * Where exec-class tools run (`tools.exec.host`): this machine, a remote host, or the bubblewrap
 * sandbox. Config, the guard's host table, the gate and the approval story all read this one list.
 */
export const EXEC_HOSTS = ["local", "remote", "sandbox"] as const;
export type ExecHost = (typeof EXEC_HOSTS)[number];
