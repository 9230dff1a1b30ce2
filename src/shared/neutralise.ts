import { assertNever } from "./assert-never.js";
import { defangLinks } from "./defang-links.js";
import { makeVisible } from "./visible-text.js";

/**
 * Where text the runner did not write (a model's words, an agent's arguments, a task a parent run
 * wrote) is shown to people, each needing its own neutralising (docs/APPROVALS.md):
 * - `mail`, `json`, `slack`, `teams`: invisible, bidirectional and control characters written as
 *   escapes (`\u202e`, so U+202E cannot turn `exe.txt` into `txt.exe`), links defanged
 *   (`https[:]//…`, `www[.]`), so no mail client or chat turns them into something to click. The
 *   chat payloads put such text only where the service parses no markup (Slack `rich_text` and
 *   `plain_text`, Teams `TextRun`), so a ``` or `<!channel>` in it stays text.
 * - `slack_mrkdwn`: the same, with `&`, `<` and `>` escaped as Slack asks, for the one place
 *   Slack parses it (the notification's fallback `text`): `<!channel>`, `<@U1>` and `<url|label>`
 *   cannot form.
 * - `terminal`: escape sequences removed whole (CSI such as clear-screen, OSC 52 clipboard writes,
 *   OSC 8 hyperlinks, DCS/APC/PM/SOS strings, their 8-bit forms), then every remaining control or
 *   invisible character written as its escape (a lone ESC, `\r` that would overwrite a line).
 *   Newlines and tabs are kept everywhere.
 */
export const NEUTRAL_SINKS = ["mail", "json", "slack", "slack_mrkdwn", "teams", "terminal"] as const;
export type NeutralSink = (typeof NEUTRAL_SINKS)[number];

// ESC or its 8-bit form, then the sequence's body, then its terminator (BEL or ST for strings).
// Built from code points: a literal class of control characters is what linters rightly distrust.
const ESC = "\\u001b";
const STRING_BODY = "[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c|$)";
const ESCAPE_SEQUENCE = new RegExp(
  [
    // CSI: ESC [ (or U+009B), parameters, intermediates, a final byte.
    `(?:${ESC}\\[|\\u009b)[\\u0030-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]?`,
    // OSC, DCS, SOS, PM, APC strings (ESC ] P X ^ _, or U+009D U+0090 U+0098 U+009E U+009F).
    `(?:${ESC}[\\]PX^_]|[\\u009d\\u0090\\u0098\\u009e\\u009f])${STRING_BODY}`,
    // Any other escape: ESC, intermediates, one final character (ESC c resets the terminal).
    `${ESC}[\\u0020-\\u002f]*[\\u0030-\\u007e]?`,
  ].join("|"),
  "g",
);

/** `text` without terminal escape sequences (the characters left are made visible by the caller). */
export function stripEscapeSequences(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, "");
}

function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Text someone else wrote, made safe to show in `sink` (see {@link NEUTRAL_SINKS}). Pure. */
export function neutralise(text: string, sink: NeutralSink): string {
  switch (sink) {
    case "mail":
    case "json":
    case "slack":
    case "teams":
      return defangLinks(makeVisible(text));
    case "slack_mrkdwn":
      return slackEscape(defangLinks(makeVisible(text)));
    case "terminal":
      return makeVisible(stripEscapeSequences(text));
    default:
      return assertNever(sink, "neutral sink");
  }
}
