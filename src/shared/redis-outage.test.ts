import { describe, expect, it } from "vitest";
import { describeRedisOutage, REDIS_OUTAGE_CONDITIONS, redisOutageOf } from "./redis-outage.js";

/** An error as ioredis' parser builds a Redis error reply. */
function reply(message: string): Error {
  const err = new Error(message);
  err.name = "ReplyError";
  return err;
}

describe("redisOutageOf", () => {
  it.each([
    ["OOM command not allowed when used memory > 'maxmemory'.", "oom"],
    ["OOM command not allowed when used memory > 'maxmemory'. script: 5ece, on @user_script:1.", "oom"],
    [
      "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
      "misconf",
    ],
    ["LOADING Redis is loading the dataset in memory", "loading"],
    ["READONLY You can't write against a read only replica.", "readonly"],
    ["BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.", "busy"],
    ["TRYAGAIN Multiple keys request during rehashing of slot", "tryagain"],
    ["WRONGTYPE Operation against a key holding the wrong kind of value", undefined],
    ["NOSCRIPT No matching script. Please use EVAL.", undefined],
    ["ERR Error running script: OOM in a user's own words", undefined],
  ])("reads the reply %j as %s", (message, condition) => {
    expect(redisOutageOf(reply(message))).toBe(condition);
  });

  it("reads ioredis' and Node's lost-connection errors as connection, and nothing else", () => {
    expect(redisOutageOf(new Error("Connection is closed."))).toBe("connection");
    expect(redisOutageOf(new Error("connect ECONNREFUSED 127.0.0.1:6379"))).toBe("connection");
    expect(redisOutageOf(new Error("OOM but not from Redis"))).toBeUndefined();
    expect(redisOutageOf("OOM command not allowed")).toBeUndefined();
  });

  it("describes every condition with what it is and a fix", () => {
    for (const condition of REDIS_OUTAGE_CONDITIONS) {
      const { what, fix } = describeRedisOutage(condition);
      expect(what.length).toBeGreaterThan(10);
      expect(fix.length).toBeGreaterThan(10);
    }
  });
});
