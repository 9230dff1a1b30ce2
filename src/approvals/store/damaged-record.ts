import { isRunnerError } from "../../shared/index.js";
import type { ApprovalRecord } from "./record.js";

/**
 * A stored approval request a listing could not read. Views show it (its id, the code and what is
 * wrong) beside the readable ones: one damaged request never hides the others, and it is never
 * hidden itself. It is never counted as approved or decided; reading it alone (`get`, `decide`)
 * still throws APPROVAL_CORRUPT.
 */
export interface DamagedRecord {
  /** The request's id. */
  readonly id: string;
  /** The code reading it raised: APPROVAL_CORRUPT. */
  readonly code: string;
  /** What is wrong with it and what to do, as the error says. */
  readonly message: string;
}

/** What a listing read: the readable requests and the damaged ones, neither hiding the other. */
export interface ApprovalListing {
  records: ApprovalRecord[];
  damaged: DamagedRecord[];
}

/**
 * The damaged entry of request `id` when reading it raised APPROVAL_CORRUPT. Any other error (Redis
 * unreachable, a bug) is thrown on: only a record known to be damaged is listed as such.
 */
export function damagedOrThrow(id: string, err: unknown): DamagedRecord {
  if (!isRunnerError(err, "APPROVAL_CORRUPT")) throw err;
  return { id, code: err.code, message: err.message };
}
