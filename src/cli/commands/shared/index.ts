// Helpers several command groups use: the CLI's Redis connection, the operator's identity, option parsers.
export { connectCliRedis } from "./cli-redis.js";
export { operatorIdentity } from "./operator-identity.js";
export { parseSince } from "./since-option.js";
export { wholeNumberOption } from "./whole-number-option.js";
