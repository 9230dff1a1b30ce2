import { describe, expect, it } from "vitest";
import { CappedOutput, OutputLog } from "./output-buffer.js";

describe("process output buffers", () => {
  it("keeps the first bytes up to the cap and counts the rest", () => {
    const out = new CappedOutput(5);
    out.push(Buffer.from("abc"));
    out.push(Buffer.from("defg"));
    out.push(Buffer.from("hij"));
    expect(out.text()).toBe("abcde");
    expect(out.dropped).toBe(5);
  });

  it("pages a log by absolute offsets and says what was dropped", () => {
    const log = new OutputLog(10);
    log.append(Buffer.from("0123456789"));
    log.append(Buffer.from("abcde"));
    expect(log.total).toBe(15);
    expect(log.read(0, 4)).toEqual({ text: "5678", from: 5, next: 9, skipped: 5 });
    expect(log.read(9, 100)).toEqual({ text: "9abcde", from: 9, next: 15, skipped: 0 });
    expect(log.read(20, 5)).toEqual({ text: "", from: 15, next: 15, skipped: 0 });
  });

  it("decodes a character split across chunks", () => {
    const log = new OutputLog(100);
    const bytes = Buffer.from("é€");
    log.append(bytes.subarray(0, 1));
    log.append(bytes.subarray(1, 3));
    log.append(bytes.subarray(3));
    log.end();
    expect(log.read(0, 10).text).toBe("é€");
  });
});
