import type { SimpleCommand } from "../shell/index.js";
import type { Invocation } from "../unwrap/index.js";
import type { GuardFinding } from "../verdict/index.js";
import { credentialFindings, credentialRedirectFindings } from "./credential-families.js";
import { rawDiskReadFindings, rawDiskRedirectFindings } from "./disk-families.js";
import { gitFindings } from "./git-families.js";
import { internalAddressFindings } from "./internal-addresses.js";
import { networkFindings } from "./network-families.js";
import { persistenceFindings, persistenceRedirectFindings } from "./persistence-families.js";
import { remoteCodeFindings } from "./remote-code-families.js";
import { secretFindings, secretRedirectFindings } from "./secret-families.js";
import { remoteShellFindings, shellNetworkRedirectFindings } from "./shell-network-families.js";

/**
 * The soft families that live in their own files, in one list, so soft-families.ts stays one
 * concept: persistence and system configuration, git, remote code, raw disk reads, host secrets,
 * credentials and network targets. (Hard disk and power families are called from hard-families.ts.)
 */
export function familyFindings(inv: Invocation): GuardFinding[] {
  return [
    ...persistenceFindings(inv),
    ...gitFindings(inv),
    ...remoteCodeFindings(inv),
    ...rawDiskReadFindings(inv),
    ...secretFindings(inv),
    ...credentialFindings(inv),
    ...networkFindings(inv),
    ...internalAddressFindings(inv),
    ...remoteShellFindings(inv),
  ];
}

/** The same families over a command's redirections. */
export function familyRedirectFindings(cmd: SimpleCommand): GuardFinding[] {
  return [
    ...persistenceRedirectFindings(cmd),
    ...rawDiskRedirectFindings(cmd),
    ...secretRedirectFindings(cmd),
    ...credentialRedirectFindings(cmd),
    ...shellNetworkRedirectFindings(cmd),
  ];
}
