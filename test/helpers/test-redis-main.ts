import { startRedisServer } from "./redis-server.js";

/** A test run's process as global-setup.ts is: starts the harness's redis-server, then waits to be killed. */
const server = await startRedisServer({ appendfsync: "everysec" });
process.stdout.write(`ready ${server.pid}\n`);
setInterval(() => undefined, 60_000);
