import { type AllowAlwaysGrant, formatTime } from "../../approvals/index.js";
import { cardTable, esc } from "./admin-html.js";

/** Notices a redirect after a revocation may ask for (never text from the URL itself). */
export const GRANT_NOTICES = {
  grant_revoked: "Grant revoked: that call asks a person again.",
  grant_not_found: "Nothing was revoked: no live grant has that id (revoked already, or expired).",
} as const;

/**
 * The dashboard's allow-always section: every live grant (tool, scope, what it allows, who granted
 * it, until when) with a Revoke button, a POST form carrying the session's CSRF secret.
 */
export function grantsSection(basePath: string, csrf: string, grants: readonly AllowAlwaysGrant[]): string {
  if (grants.length === 0) return `<p class="muted" id="no-grants">No allow-always grant is live.</p>`;
  const rows = grants.map((g) => {
    const allows =
      g.argsHash !== undefined
        ? `arguments with SHA-256 ${g.argsHash}`
        : `commands matching ${g.commandPattern}`;
    const action = esc(`${basePath}/admin/grants/${g.id}/revoke`);
    return {
      attrs: ` id="grant-${esc(g.id)}"`,
      cells: [
        `<code>${esc(g.id)}</code>`,
        `<code>${esc(g.tool)}</code>`,
        `${esc(g.scope)} ${esc(g.scopeId)}`,
        `<code>${esc(allows)}</code>`,
        esc(g.createdBy),
        esc(formatTime(g.createdAt)),
        esc(formatTime(g.expiresAt)),
        `<form class="inline" method="post" action="${action}"><input type="hidden" name="csrf" value="${esc(csrf)}"><button type="submit" class="deny" id="revoke-${esc(g.id)}">Revoke</button></form>`,
      ],
    };
  });
  return cardTable("grants", ["id", "tool", "for", "allows", "granted by", "created", "expires", ""], rows);
}
