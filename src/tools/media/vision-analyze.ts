import { extname } from "node:path";
import Type from "typebox";
import { z } from "zod";
import { defineTool, type Tool, type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { readHeldFile } from "../beneath/held-read.js";
import { resolveInside } from "../inside-path.js";
import { readJson } from "../provider-http.js";
import { type MediaToolOptions, mediaReadiness, postToProvider } from "./media-provider.js";

/** Largest image file sent, bytes. */
export const VISION_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

export const VISION_DETAILS = ["low", "high", "auto"] as const;

const VisionParams = Type.Object(
  {
    path: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, description: "An image file in the workspace" }),
    ),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: "An http(s) image URL (the provider fetches it)",
      }),
    ),
    prompt: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4000,
        description: "What to look for (default: describe the image)",
      }),
    ),
    detail: Type.Optional(Type.Enum(VISION_DETAILS, { description: "Image detail level (default auto)" })),
  },
  { additionalProperties: false },
);

const ChatAnswer = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

/**
 * `vision_analyze`: asks a vision model (OpenAI-compatible chat completions with an image part)
 * about one image, given as a workspace file (sent inline; its real path must stay in the workspace)
 * or as an http(s) URL the provider fetches. Not ready without `tools.media.vision`.
 */
export function createVisionAnalyzeTool(options: MediaToolOptions): Tool<typeof VisionParams> {
  const { endpoint } = options;
  return defineTool({
    name: "vision_analyze",
    description: "Analyse an image (a workspace file or an http(s) URL) with a vision model.",
    parameters: VisionParams,
    riskLevel: "read_only",
    idempotent: true,
    timeoutSeconds: Math.ceil((endpoint?.timeoutMs ?? 60_000) / 1000) + 5,
    readinessDetail: () => mediaReadiness(endpoint, "vision"),
    async execute(args, ctx): Promise<ToolResult> {
      if (!endpoint || !mediaReadiness(endpoint, "vision").ready) {
        return toolFailure("not_ready", mediaReadiness(endpoint, "vision").detail);
      }
      if ((args.path === undefined) === (args.url === undefined)) {
        const problem = "give exactly one of path and url";
        return toolFailure(
          "validation",
          `Invalid arguments for tool "vision_analyze": path, url: ${problem}`,
          {
            fields: [
              { field: "path", problem },
              { field: "url", problem },
            ],
          },
        );
      }
      let imageUrl: string;
      if (args.url !== undefined) {
        if (!/^https?:\/\//i.test(args.url)) {
          return toolFailure(
            "validation",
            'Invalid arguments for tool "vision_analyze": url: must be an http or https URL',
            {
              fields: [{ field: "url", problem: "must be an http or https URL" }],
            },
          );
        }
        imageUrl = args.url;
      } else {
        const inside = await resolveInside(ctx.workspace, args.path ?? "");
        if (!inside.ok) return toolFailure("denied", `vision_analyze: ${inside.problem}`);
        const type = IMAGE_TYPES[extname(inside.path).toLowerCase()];
        if (!type)
          return toolFailure(
            "business",
            `vision_analyze: ${args.path} is not a PNG, JPEG, GIF or WebP image`,
          );
        // Read through the held parent of the checked real path, so a folder swapped for a link since is refused.
        const read = await readHeldFile(inside.path, VISION_MAX_IMAGE_BYTES);
        if (read.kind === "too_large") {
          return toolFailure(
            "business",
            `vision_analyze: ${args.path} is larger than ${VISION_MAX_IMAGE_BYTES} bytes`,
          );
        }
        if (read.kind !== "file") {
          return toolFailure("business", `vision_analyze: ${args.path} is not a regular file`);
        }
        imageUrl = `data:${type};base64,${read.bytes.toString("base64")}`;
      }
      const what = `the vision model ${endpoint.model}`;
      const answer = await postToProvider(
        options,
        endpoint,
        "chat/completions",
        {
          model: endpoint.model,
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: args.prompt ?? "Describe this image." },
                { type: "image_url", image_url: { url: imageUrl, detail: args.detail ?? "auto" } },
              ],
            },
          ],
        },
        what,
      );
      if (!answer.ok) return answer.result;
      const json = await readJson(answer.response, what);
      if (!json.ok) return json.result;
      const parsed = ChatAnswer.safeParse(json.body);
      const text = parsed.success ? parsed.data.choices[0]?.message.content : undefined;
      if (!text) return toolFailure("business", `${what} answered without text`);
      return toolSuccess(text, { model: endpoint.model });
    },
  });
}
