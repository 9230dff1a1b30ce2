/**
 * Reads an strace log of a redis-server (`strace -f -y -e trace=write,fsync,fdatasync`) and answers,
 * for every AOF file written, how long it was at the last fsync that returned: the part a machine
 * crash cannot take. A write counts toward an fsync only when its return was logged before the
 * fsync's entry: strace holds a thread stopped at each syscall entry and exit until it has logged
 * it, so such a write was complete in the kernel before the fsync began. A write or fsync still
 * under way at the kill counts for nothing (the crash may take it).
 */
export function fsyncedLengths(trace: string, initial: ReadonlyMap<string, number>): Map<string, number> {
  const written = new Map(initial);
  const synced = new Map(initial);
  // Calls a thread has entered and not returned from: pid → what it called, on which file, and for
  // an fsync the length written when it began.
  const pending = new Map<string, { call: string; path: string; snapshot: number }>();
  const isAof = (path: string) => path.endsWith(".aof");
  const finish = (call: string, path: string, snapshot: number, result: number) => {
    if (call === "write" && result > 0) written.set(path, (written.get(path) ?? 0) + result);
    if (call !== "write" && result === 0) synced.set(path, Math.max(synced.get(path) ?? 0, snapshot));
  };
  for (const line of trace.split("\n")) {
    const entry = /^(\d+)\s+(write|fsync|fdatasync)\(\d+<([^>]*)>(.*)$/.exec(line);
    if (entry) {
      const [, pid = "", call = "", path = "", rest = ""] = entry;
      if (!isAof(path)) continue;
      const snapshot = written.get(path) ?? 0;
      if (rest.endsWith("<unfinished ...>")) {
        pending.set(pid, { call, path, snapshot });
        continue;
      }
      const result = /= (-?\d+)/.exec(rest.slice(rest.lastIndexOf(")")));
      if (result) finish(call, path, snapshot, Number(result[1]));
      continue;
    }
    const resumed = /^(\d+)\s+<\.\.\. (write|fsync|fdatasync) resumed>.*\) += (-?\d+)/.exec(line);
    if (resumed) {
      const [, pid = "", , result = ""] = resumed;
      const open = pending.get(pid);
      pending.delete(pid);
      if (open) finish(open.call, open.path, open.snapshot, Number(result));
    }
  }
  return synced;
}
