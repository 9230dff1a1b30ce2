import { describe, expect, it } from "vitest";
import { createLogger } from "../../logging/index.js";
import { isRunnerError } from "../../shared/index.js";
import { createNotifiers } from "./create-notifiers.js";

const logger = createLogger({ level: "silent", format: "json" });
const smtp = { host: "mail.example.test", port: 587, secure: false, user: "", from: "r@example.test" };

describe("createNotifiers", () => {
  it.each([
    ["no SMTP settings", null, null, ["log"]],
    ["an empty SMTP host", { ...smtp, host: "" }, null, ["log"]],
    ["an SMTP host", smtp, null, ["email"]],
    ["an SMTP host and a webhook", smtp, { url: "https://hooks.example.test/a" }, ["email", "webhook"]],
    ["an empty webhook url", smtp, { url: "" }, ["email"]],
  ])("uses %s → %j", (_name, smtpSettings, webhook, names) => {
    expect(createNotifiers({ smtp: smtpSettings, webhook, logger }).map((n) => n.name)).toEqual(names);
  });

  it("refuses a webhook url that is not http(s)", () => {
    let error: unknown;
    try {
      createNotifiers({ smtp: null, webhook: { url: "file:///etc/passwd" }, logger });
    } catch (err) {
      error = err;
    }
    expect(isRunnerError(error, "APPROVAL_INPUT_INVALID")).toBe(true);
  });
});
