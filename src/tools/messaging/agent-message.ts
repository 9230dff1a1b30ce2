import { defangLinks, makeVisible } from "../../shared/index.js";
import type { OutboundMessage } from "./message-port.js";

/**
 * What people receive from `notify` and `message`: text an agent wrote, which must never pass for
 * the runner speaking (an approval mail's subject, a link to click). The subject carries a fixed
 * prefix no runner mail uses, the body opens with a banner saying who wrote it, links are defanged
 * and hidden characters (bidi overrides, controls) are written out.
 */
export const AGENT_SUBJECT_PREFIX = "[agent message]";

export function agentMessageForPeople(message: OutboundMessage): { subject: string; text: string } {
  const subject = `${AGENT_SUBJECT_PREFIX} ${makeVisible(message.subject).replace(/[\r\n]+/g, " ")}`.slice(
    0,
    240,
  );
  const banner = [
    `Written by agent "${message.origin.agentId}" (run ${message.origin.runId}) with the ${message.kind} tool.`,
    "It is not a message from echo-runner itself: approval requests come from echo-runner, never from an agent. Links below are shown defanged.",
    "",
  ];
  return { subject, text: [...banner, defangLinks(makeVisible(message.text))].join("\n") };
}
