import { Cluster, Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createRedisConnection, describeRedisTarget, parseClusterNode } from "./redis-connection.js";

describe("createRedisConnection", () => {
  it("is a plain Redis on the URL when no cluster node is given", () => {
    const redis = createRedisConnection(
      { url: "redis://127.0.0.1:6390", clusterNodes: [] },
      { lazyConnect: true },
    );
    expect(redis).toBeInstanceOf(Redis);
    redis.disconnect();
  });

  it("is a Cluster over the seed nodes, with the URL's credentials and TLS on every node", () => {
    const cluster = createRedisConnection(
      { url: "rediss://user:p%40ss@ignored:6379", clusterNodes: ["10.0.0.5:7000", "[::1]:7001"] },
      { lazyConnect: true, maxRetriesPerRequest: null },
    );
    expect(cluster).toBeInstanceOf(Cluster);
    const c = cluster as Cluster;
    expect(c.options.redisOptions).toMatchObject({
      username: "user",
      password: "p@ss",
      tls: {},
      maxRetriesPerRequest: null,
    });
    expect(c.options.lazyConnect).toBe(true);
    expect((c as unknown as { startupNodes: unknown[] }).startupNodes).toEqual([
      { host: "10.0.0.5", port: 7000 },
      { host: "::1", port: 7001 },
    ]);
    c.disconnect();
  });

  it("refuses a seed node that is not host:port, naming it", () => {
    for (const bad of ["10.0.0.5", "10.0.0.5:0", "10.0.0.5:70000", "redis://a:1", " a:1"]) {
      expect(() => parseClusterNode(bad), bad).toThrow(/is not host:port/);
    }
  });

  it("describes the target without credentials", () => {
    expect(describeRedisTarget({ url: "redis://:secret@h:1", clusterNodes: ["a:1", "b:2"] }, () => "x")).toBe(
      "the Redis Cluster at a:1,b:2",
    );
    expect(describeRedisTarget({ url: "redis://:secret@h:1", clusterNodes: [] }, () => "redis://h:1")).toBe(
      "Redis at redis://h:1",
    );
  });
});
