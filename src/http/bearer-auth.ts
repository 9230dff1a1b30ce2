import type { FastifyRequest } from "fastify";
import { secretsEqual } from "../approvals/index.js";

/** True when the request carries `Authorization: Bearer <token>` with the configured token. */
export function hasBearerToken(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization;
  const presented = typeof header === "string" && header.startsWith("Bearer ") ? header.slice(7) : "";
  return secretsEqual(presented, token);
}
