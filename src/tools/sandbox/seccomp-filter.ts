/**
 * The seccomp filter every sandboxed command runs under (bubblewrap's `--seccomp FD`): the system
 * calls Docker's default profile denies to a container without capabilities — tracing other
 * processes, loading BPF, io_uring, performance counters, the kernel keyring, userfaultfd, mounting
 * and the new mount API, namespaces, kernel modules and kexec, clock and swap changes, reboot —
 * fail with EPERM; `clone` with a namespace flag fails the same way and `clone3` (whose flags sit
 * in memory a filter cannot read) with ENOSYS, so the C library falls back to `clone`. A call from
 * another architecture (x32, a 32-bit ABI) kills the process. Written as classic BPF by hand: the
 * program is a fixed list of comparisons, and libseccomp is not a dependency a Node package can have.
 */

/** The denied system calls, by name. */
export const SECCOMP_DENIED_SYSCALLS = [
  "acct",
  "add_key",
  "bpf",
  "clock_adjtime",
  "clock_settime",
  "create_module",
  "delete_module",
  "finit_module",
  "fsconfig",
  "fsmount",
  "fsopen",
  "fspick",
  "get_kernel_syms",
  "get_mempolicy",
  "init_module",
  "io_uring_enter",
  "io_uring_register",
  "io_uring_setup",
  "ioperm",
  "iopl",
  "kcmp",
  "kexec_file_load",
  "kexec_load",
  "keyctl",
  "lookup_dcookie",
  "mbind",
  "mount",
  "mount_setattr",
  "move_mount",
  "move_pages",
  "name_to_handle_at",
  "nfsservctl",
  "open_by_handle_at",
  "open_tree",
  "perf_event_open",
  "pivot_root",
  "process_vm_readv",
  "process_vm_writev",
  "ptrace",
  "query_module",
  "quotactl",
  "quotactl_fd",
  "reboot",
  "request_key",
  "set_mempolicy",
  "setns",
  "settimeofday",
  "swapoff",
  "swapon",
  "_sysctl",
  "syslog",
  "umount2",
  "unshare",
  "uselib",
  "userfaultfd",
  "ustat",
  "vhangup",
] as const;
export type DeniedSyscall = (typeof SECCOMP_DENIED_SYSCALLS)[number];

type SyscallTable = Partial<Record<DeniedSyscall | "clone" | "clone3", number>>;

// From the kernel's uapi headers (asm/unistd_64.h; asm-generic/unistd.h for arm64). A name
// missing from an architecture's table has no number there.
const X86_64: SyscallTable = {
  clone: 56,
  clone3: 435,
  ptrace: 101,
  syslog: 103,
  uselib: 134,
  ustat: 136,
  vhangup: 153,
  pivot_root: 155,
  _sysctl: 156,
  acct: 163,
  settimeofday: 164,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  iopl: 172,
  ioperm: 173,
  create_module: 174,
  init_module: 175,
  delete_module: 176,
  get_kernel_syms: 177,
  query_module: 178,
  quotactl: 179,
  nfsservctl: 180,
  lookup_dcookie: 212,
  clock_settime: 227,
  mbind: 237,
  set_mempolicy: 238,
  get_mempolicy: 239,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  unshare: 272,
  move_pages: 279,
  perf_event_open: 298,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  clock_adjtime: 305,
  setns: 308,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kcmp: 312,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  quotactl_fd: 443,
};

const ARM64: SyscallTable = {
  lookup_dcookie: 18,
  umount2: 39,
  mount: 40,
  pivot_root: 41,
  nfsservctl: 42,
  vhangup: 58,
  quotactl: 60,
  acct: 89,
  unshare: 97,
  kexec_load: 104,
  init_module: 105,
  delete_module: 106,
  clock_settime: 112,
  syslog: 116,
  ptrace: 117,
  reboot: 142,
  settimeofday: 170,
  add_key: 217,
  request_key: 218,
  keyctl: 219,
  clone: 220,
  swapon: 224,
  swapoff: 225,
  mbind: 235,
  get_mempolicy: 236,
  set_mempolicy: 237,
  move_pages: 239,
  perf_event_open: 241,
  name_to_handle_at: 264,
  open_by_handle_at: 265,
  clock_adjtime: 266,
  setns: 268,
  process_vm_readv: 270,
  process_vm_writev: 271,
  kcmp: 272,
  finit_module: 273,
  bpf: 280,
  userfaultfd: 282,
  kexec_file_load: 294,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  clone3: 435,
  mount_setattr: 442,
  quotactl_fd: 443,
};

interface Architecture {
  /** AUDIT_ARCH_* of seccomp_data.arch. */
  readonly audit: number;
  readonly table: SyscallTable;
  /** x86-64 also accepts x32 calls (numbers with bit 30 set), which the filter refuses. */
  readonly x32Bit: boolean;
}

const ARCHITECTURES: Readonly<Record<string, Architecture>> = {
  x64: { audit: 0xc000003e, table: X86_64, x32Bit: true },
  arm64: { audit: 0xc00000b7, table: ARM64, x32Bit: false },
};

/** The Node architectures a filter can be built for. */
export const SECCOMP_ARCHITECTURES = Object.keys(ARCHITECTURES);

// Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const ENOSYS = 38;
// seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low 32 bits on little-endian machines).
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME. */
const CLONE_NAMESPACES =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x80;
const X32_BIT = 0x40000000;

type Label = "deny" | "enosys" | "kill" | "allow";
type Insn =
  | { readonly op: number; readonly k: number }
  | { readonly op: number; readonly k: number; readonly ifTrue: Label | 0; readonly ifFalse: Label | 0 };

/**
 * The compiled program (struct sock_filter[], 8 bytes each, in the machine's byte order) for the
 * architecture, or undefined where there is no table for it.
 */
export function buildSeccompFilter(arch: string = process.arch): Buffer | undefined {
  const target = ARCHITECTURES[arch];
  if (target === undefined) return undefined;
  const body: Insn[] = [
    { op: LD_W_ABS, k: ARCH },
    { op: JEQ_K, k: target.audit, ifTrue: 0, ifFalse: "kill" },
    { op: LD_W_ABS, k: NR },
  ];
  if (target.x32Bit) body.push({ op: JGE_K, k: X32_BIT, ifTrue: "kill", ifFalse: 0 });
  for (const name of SECCOMP_DENIED_SYSCALLS) {
    const nr = target.table[name];
    if (nr !== undefined) body.push({ op: JEQ_K, k: nr, ifTrue: "deny", ifFalse: 0 });
  }
  if (target.table.clone3 !== undefined)
    body.push({ op: JEQ_K, k: target.table.clone3, ifTrue: "enosys", ifFalse: 0 });
  if (target.table.clone !== undefined) {
    // Not clone: allow. Clone: deny when a namespace flag is set, else allow.
    body.push({ op: JEQ_K, k: target.table.clone, ifTrue: 0, ifFalse: "allow" });
    body.push({ op: LD_W_ABS, k: ARG0_LOW });
    body.push({ op: JSET_K, k: CLONE_NAMESPACES, ifTrue: "deny", ifFalse: "allow" });
  }
  const labels: Record<Label, number> = {
    allow: body.length,
    deny: body.length + 1,
    enosys: body.length + 2,
    kill: body.length + 3,
  };
  const program: Insn[] = [
    ...body,
    { op: RET_K, k: RET_ALLOW },
    { op: RET_K, k: RET_ERRNO | EPERM },
    { op: RET_K, k: RET_ERRNO | ENOSYS },
    { op: RET_K, k: RET_KILL_PROCESS },
  ];
  const out = Buffer.alloc(program.length * 8);
  program.forEach((insn, at) => {
    const jump = (target: Label | 0): number => {
      if (target === 0) return 0;
      const offset = labels[target] - at - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp filter jump out of range (${offset})`);
      return offset;
    };
    const base = at * 8;
    out.writeUInt16LE(insn.op, base);
    out.writeUInt8("ifTrue" in insn ? jump(insn.ifTrue) : 0, base + 2);
    out.writeUInt8("ifFalse" in insn ? jump(insn.ifFalse) : 0, base + 3);
    out.writeUInt32LE(insn.k >>> 0, base + 4);
  });
  return out;
}
