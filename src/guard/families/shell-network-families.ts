import { redirectTargets } from "../network/index.js";
import type { Field, SimpleCommand } from "../shell/index.js";
import { type Invocation, isInterpreter, programName } from "../unwrap/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";
import { judgeTarget } from "./network-families.js";

/**
 * Network use that needs no network program: bash's `/dev/tcp/HOST/PORT` and `/dev/udp/…`
 * redirections (judged like any other target), and programs that hand a shell or interpreter to
 * the network: `bash -i >& /dev/tcp/…`, `nc -e /bin/sh`, `ncat --sh-exec`, socat `EXEC:` /
 * `SYSTEM:` joined to a network address. Those give whoever is at the other end a shell: soft
 * (remote code), whatever the address.
 */

/** Findings for `/dev/tcp` redirections, and for a shell wired to one. */
export function shellNetworkRedirectFindings(cmd: SimpleCommand): GuardFinding[] {
  const targets = redirectTargets(cmd);
  const out: GuardFinding[] = [];
  for (const t of targets) {
    const f = judgeTarget(t);
    if (f) out.push(f);
  }
  const first = cmd.argv[0];
  if (targets.length > 0 && first && isInterpreter(programName(first)))
    out.push(
      softFinding(
        "soft.remote-script",
        `${programName(first)} has its input or output wired to the network (${targets.map((t) => t.host).join(", ")}): a remote shell`,
      ),
    );
  return out;
}

const NETWORK_ADDRESS = /^(tcp|udp|ssl|openssl|sctp|dccp|socks|proxy|vsock)[\w-]*:/i;

function hasExecOption(args: readonly Field[]): boolean {
  return args.some((a) => /^(-e|-c|--exec|--sh-exec|--lua-exec)(=|$)|^-[ec]./.test(a.text));
}

/** A network program that runs a program with the connection as its terminal. */
export function remoteShellFindings(inv: Invocation): GuardFinding[] {
  if (/^(nc|ncat|netcat)$/.test(inv.name) && hasExecOption(inv.args))
    return [
      softFinding(
        "soft.remote-script",
        `${inv.name} runs a program with the network connection as its input and output`,
      ),
    ];
  if (
    inv.name === "socat" &&
    inv.args.some((a) => /^(exec|system):/i.test(a.text)) &&
    inv.args.some((a) => NETWORK_ADDRESS.test(a.text))
  )
    return [
      softFinding(
        "soft.remote-script",
        "socat runs a program with the network connection as its input and output",
      ),
    ];
  return [];
}
