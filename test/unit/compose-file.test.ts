import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/** docker-compose.yml as the README describes it. */
describe("docker-compose.yml", () => {
  it("publishes Mailpit (approval mails, links included) on this machine only", async () => {
    const compose = parse(await readFile(new URL("../../docker-compose.yml", import.meta.url), "utf8")) as {
      services: Record<string, { ports?: string[] }>;
    };
    const ports = compose.services.mailpit?.ports ?? [];
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) expect(port.startsWith("127.0.0.1:")).toBe(true);
  });
});
