import { describe, expect, it } from "vitest";
import { fsyncedLengths } from "./fsync-trace.js";

const AOF = "/d/appendonlydir/appendonly.aof.1.incr.aof";

describe("fsyncedLengths", () => {
  it("counts what was written before each returned fsync began, and nothing after the last", () => {
    const trace = [
      `10 write(1</d/redis.log>, ""..., 81) = 81`,
      `10 write(8<${AOF}>, ""..., 50) = 50`,
      `12 fdatasync(8<${AOF}> <unfinished ...>`,
      `10 write(8<${AOF}>, ""..., 27) = 27`,
      `12 <... fdatasync resumed>) = 0`,
      `10 write(8<${AOF}>, ""..., 30 <unfinished ...>`,
      `12 fdatasync(8<${AOF}> <unfinished ...>`,
      `10 <... write resumed>) = 30`,
      `10 write(7<TCP:[127.0.0.1:6379->127.0.0.1:5000]>, ""..., 5) = 5`,
      `12 +++ killed by SIGKILL +++`,
    ].join("\n");
    // 100 bytes were there when the server started; the second fsync never returned.
    expect(fsyncedLengths(trace, new Map([[AOF, 100]])).get(AOF)).toBe(150);
  });

  it("takes an fsync in the writing thread (appendfsync always) as covering the writes before it", () => {
    const trace = [
      `10 write(8<${AOF}>, ""..., 50) = 50`,
      `10 fdatasync(8<${AOF}>) = 0`,
      `10 write(8<${AOF}>, ""..., 20) = 20`,
      `10 fdatasync(8<${AOF}>) = -1 EIO (Input/output error)`,
    ].join("\n");
    expect(fsyncedLengths(trace, new Map()).get(AOF)).toBe(50);
  });
});
