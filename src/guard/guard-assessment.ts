/** What the static guard said about a call (command guard + exec policy, SSRF, path fence). */
export interface GuardAssessment {
  readonly verdict: "allow" | "ask" | "deny";
  /** Rule id, e.g. "hard.recursive-delete-system", "ssrf.internal", "exec.safe-bins". */
  readonly rule: string;
  readonly reason: string;
  /** For exec-class calls: every simple command is a safe bin whose argv fits its profile. */
  readonly safeBins?: boolean;
}
