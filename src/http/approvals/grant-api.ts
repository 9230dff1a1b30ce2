import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AllowAlwaysGrant, RedisAllowAlwaysStore } from "../../approvals/index.js";
import { isRunnerError } from "../../shared/index.js";

/**
 * What the API and /admin need of the allow-always store: list (with the records that cannot be
 * read, named so they are not hidden) and revoke.
 */
export type GrantsPort = Pick<RedisAllowAlwaysStore, "listWithDamaged" | "revoke">;

/** A grant id as `RedisAllowAlwaysStore` makes them (16 hex digits); anything else is unknown. */
export function isGrantId(id: string): boolean {
  return /^[0-9a-f]{16}$/.test(id);
}

/**
 * Revokes a grant as `by`: the grant, or null when no live grant has the id
 * (APPROVAL_GRANT_NOT_FOUND). Shared by the JSON API and /admin.
 */
export async function revokeGrant(
  grants: GrantsPort,
  id: string,
  by: string,
): Promise<AllowAlwaysGrant | null> {
  if (!isGrantId(id)) return null;
  try {
    return await grants.revoke(id, by);
  } catch (err) {
    if (isRunnerError(err, "APPROVAL_GRANT_NOT_FOUND")) return null;
    throw err;
  }
}

/**
 * `GET /api/approvals/grants` (`{grants, damaged}`: the live allow-always grants, and `{id, code,
 * message}` of each stored record that cannot be read, which allows nothing) and `POST
 * /api/approvals/grants/:id/revoke`, registered inside the approval API's scope, behind its
 * operator bearer check; a revocation is recorded as the token's owner.
 */
export function grantApiRoutes(
  app: FastifyInstance,
  grants: GrantsPort,
  operatorOf: (request: FastifyRequest) => string | undefined,
): void {
  app.get("/api/approvals/grants", async () => await grants.listWithDamaged());

  app.post<{ Params: { id: string } }>("/api/approvals/grants/:id/revoke", async (request, reply) => {
    const operator = operatorOf(request);
    if (operator === undefined)
      return reply.code(401).send({ error: "UNAUTHORIZED", message: "a valid bearer token is required" });
    const revoked = await revokeGrant(grants, request.params.id, operator);
    if (revoked === null) {
      return reply.code(404).send({
        error: "APPROVAL_GRANT_NOT_FOUND",
        message:
          "no live allow-always grant has this id (revoked, expired or mistyped); GET /api/approvals/grants lists them",
      });
    }
    return { revoked };
  });
}
