import { startLocalRedis } from "../../workers/local-redis.js";

/** A runner that starts its local redis-server and waits to be killed (argv: url dataDir). */
const [url, dataDir] = process.argv.slice(2) as [string, string];
const local = await startLocalRedis(url, dataDir);
process.stdout.write(`ready ${local.url}\n`);
setInterval(() => undefined, 60_000);
