import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BashMarkerSandbox, createBashMarkerSandbox } from "../../test/helpers/bash-marker.js";
import { backquoted } from "./fuzz-generators.fixture.js";

/**
 * Nested backquotes in the fuzz generator, checked by real bash with a harmless command. The whole
 * generator is checked the same way in test/security/guard-fuzz-scripts-bash.test.ts.
 */

let sandbox: BashMarkerSandbox;
beforeAll(() => {
  sandbox = createBashMarkerSandbox();
});
afterAll(() => sandbox.dispose());
const runsMarker = (scripts: readonly string[]) => sandbox.runsMarker(scripts);

describe("fuzz generator scripts under bash", () => {
  it("backquoted hands the inner shell exactly its text, however deep", async () => {
    const scripts: string[] = [];
    let script = "touch ran";
    for (let depth = 1; depth <= 4; depth++) {
      script = `echo ${backquoted(script)}`;
      scripts.push(script);
    }
    // Backslashes, dollars and quotes inside survive the nesting too.
    scripts.push(`echo ${backquoted(`echo ${backquoted("t\\ouch $'r'an")}`)}`);
    expect(await runsMarker(scripts)).toEqual(scripts.map(() => true));
  });
});
