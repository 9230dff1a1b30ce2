import Type from "typebox";
import { defineTool, type Tool, toolSuccess } from "../../catalog/index.js";
import { knowledgeReadiness, knowledgeWorkspace } from "./knowledge-index.js";
import { type KnowledgeStore, knowledgeScope } from "./knowledge-store.js";

/** Characters of each hit's text shown. */
export const KNOWLEDGE_SNIPPET_CHARS = 600;

const KnowledgeSearchParams = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500, description: "Words to search for" }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: "Most results (default 8)" })),
    path_prefix: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, description: "Only files under this workspace folder" }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `knowledge_search`: full-text search over what knowledge_index indexed for this workspace (BM25+
 * ranking with prefix and light fuzzy matching; headings and paths weigh more). Each hit names its
 * file and line range.
 */
export function createKnowledgeSearchTool(
  store: KnowledgeStore | undefined,
): Tool<typeof KnowledgeSearchParams> {
  return defineTool({
    name: "knowledge_search",
    description:
      "Search the workspace's knowledge base (built by knowledge_index); returns passages with file and lines.",
    parameters: KnowledgeSearchParams,
    riskLevel: "read_only",
    idempotent: true,
    readinessDetail: () => knowledgeReadiness(store),
    async execute(args, ctx) {
      const workspace = await knowledgeWorkspace(store, ctx.workspace);
      if (!workspace.ok) return workspace.result;
      const { root } = workspace;
      const scope = knowledgeScope(root);
      const snapshot = await workspace.store.read(scope);
      if (snapshot.files.size === 0) {
        return toolSuccess("The knowledge base of this workspace is empty; run knowledge_index first.", {
          results: [],
        });
      }
      const prefix = args.path_prefix?.replace(/^\.\/|\/+$/g, "");
      const hits = snapshot.index
        .search(
          args.query,
          prefix ? { filter: (r) => r.path === prefix || String(r.path).startsWith(`${prefix}/`) } : {},
        )
        .slice(0, args.limit ?? 8);
      if (hits.length === 0)
        return toolSuccess(`No passages match ${JSON.stringify(args.query)}.`, { results: [] });
      const texts = await workspace.store.chunkTexts(
        scope,
        hits.map((h) => String(h.id)),
      );
      const results = hits.map((h) => ({
        path: String(h.path),
        startLine: Number(h.startLine),
        endLine: Number(h.endLine),
        heading: String(h.heading ?? ""),
        score: Math.round(h.score * 100) / 100,
        text: (texts.get(String(h.id)) ?? "").slice(0, KNOWLEDGE_SNIPPET_CHARS),
      }));
      const output = results
        .map(
          (r, i) =>
            `${i + 1}. ${r.path}:${r.startLine}-${r.endLine}${r.heading ? ` (${r.heading})` : ""} score ${r.score}\n${r.text}`,
        )
        .join("\n\n");
      return toolSuccess(output, { results });
    },
  });
}
