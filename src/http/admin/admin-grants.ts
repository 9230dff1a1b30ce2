import escapeHtml from "escape-html";
import { type AllowAlwaysGrant, formatTime } from "../../approvals/index.js";
import { makeVisible } from "../../shared/index.js";

// As on the rest of the dashboard: hidden characters written out, then HTML-escaped.
const esc = (value: unknown): string =>
  escapeHtml(makeVisible(value === null || value === undefined ? "" : String(value)));

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
    return `<tr id="grant-${esc(g.id)}"><td><code>${esc(g.id)}</code></td><td><code>${esc(g.tool)}</code></td>
<td>${esc(g.scope)} ${esc(g.scopeId)}</td><td><code>${esc(allows)}</code></td><td>${esc(g.createdBy)}</td>
<td>${esc(formatTime(g.createdAt))}</td><td>${esc(formatTime(g.expiresAt))}</td>
<td><form class="inline" method="post" action="${action}"><input type="hidden" name="csrf" value="${esc(csrf)}"><button type="submit" class="deny" id="revoke-${esc(g.id)}">Revoke</button></form></td></tr>`;
  });
  return `<table id="grants"><tr><th>id</th><th>tool</th><th>for</th><th>allows</th><th>granted by</th><th>created</th><th>expires</th><th></th></tr>
${rows.join("\n")}</table>`;
}
