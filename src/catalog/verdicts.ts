/**
 * What a decision about a call can be, least severe first: the guard's verdict, the gate's answer
 * and the audit trail's record all use this one list (the guard ranks verdicts by their place in it).
 */
export const DECISION_VERDICTS = ["allow", "ask", "deny"] as const;
export type DecisionVerdict = (typeof DECISION_VERDICTS)[number];
