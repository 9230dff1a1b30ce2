import { describe, expect, it } from "vitest";
import { SLACK_TIMESTAMP_WINDOW_MS, slackSignature, verifySlackSignature } from "./slack-signature.js";

// The worked example of api.slack.com/authentication/verifying-requests-from-slack.
const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const TIMESTAMP = "1531420618";
const BODY =
  "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
const SIGNATURE = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
const NOW = Number(TIMESTAMP) * 1000;

describe("Slack v0 request signatures", () => {
  it("signs Slack's documented example to Slack's documented signature", () => {
    expect(slackSignature(SECRET, TIMESTAMP, BODY)).toBe(SIGNATURE);
  });

  it.each([
    ["Slack's example at its own time", TIMESTAMP, SIGNATURE, BODY, NOW, null],
    ["5 minutes later", TIMESTAMP, SIGNATURE, BODY, NOW + SLACK_TIMESTAMP_WINDOW_MS, null],
    ["a moment past 5 minutes", TIMESTAMP, SIGNATURE, BODY, NOW + SLACK_TIMESTAMP_WINDOW_MS + 1000, "stale"],
    [
      "a timestamp from the future",
      TIMESTAMP,
      SIGNATURE,
      BODY,
      NOW - SLACK_TIMESTAMP_WINDOW_MS - 1000,
      "stale",
    ],
    ["no timestamp", undefined, SIGNATURE, BODY, NOW, "stale"],
    ["a timestamp that is not a number", "1531420618.5", SIGNATURE, BODY, NOW, "stale"],
    ["a body changed by one character", TIMESTAMP, SIGNATURE, `${BODY}x`, NOW, "invalid"],
    [
      "a signature of another secret",
      TIMESTAMP,
      slackSignature("x".repeat(32), TIMESTAMP, BODY),
      BODY,
      NOW,
      "invalid",
    ],
    ["no signature", TIMESTAMP, undefined, BODY, NOW, "invalid"],
    ["a signature without v0=", TIMESTAMP, SIGNATURE.slice(3), BODY, NOW, "invalid"],
    ["an upper-case signature", TIMESTAMP, SIGNATURE.toUpperCase(), BODY, NOW, "invalid"],
    ["a signature one hex digit short", TIMESTAMP, SIGNATURE.slice(0, -1), BODY, NOW, "invalid"],
    ["a signature header given twice", TIMESTAMP, [SIGNATURE, SIGNATURE], BODY, NOW, "invalid"],
  ])("%s", (_what, timestamp, signature, body, now, expected) => {
    expect(verifySlackSignature(SECRET, { timestamp, signature }, body, now)).toBe(expected);
  });
});
