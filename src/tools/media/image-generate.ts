import Type from "typebox";
import { z } from "zod";
import { defineTool, type Tool, type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { planWriteInside, writeInside } from "../inside-path.js";
import { readJson } from "../provider-http.js";
import { type MediaToolOptions, mediaReadiness, postToProvider } from "./media-provider.js";

const ImageParams = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: 4000, description: "What the image shows" }),
    size: Type.Optional(
      Type.String({
        pattern: "^[0-9]{2,4}x[0-9]{2,4}$",
        description: "WIDTHxHEIGHT, e.g. 1024x1024 (default)",
      }),
    ),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        pattern: "\\.png$",
        description: "Where to save the PNG in the workspace (default images/<call id>.png)",
      }),
    ),
  },
  { additionalProperties: false },
);

const ImageAnswer = z.object({
  data: z.array(z.object({ b64_json: z.string().optional(), revised_prompt: z.string().optional() })).min(1),
});

/**
 * `image_generate`: generates one image through an OpenAI-compatible images endpoint and saves it
 * as a PNG inside the workspace (written through a temporary file and a rename). The default file
 * name derives from the call's idempotency key, so a re-run overwrites its own file and nothing else.
 */
export function createImageGenerateTool(options: MediaToolOptions): Tool<typeof ImageParams> {
  const { endpoint } = options;
  return defineTool({
    name: "image_generate",
    description: "Generate an image from a prompt and save it as a PNG in the workspace.",
    parameters: ImageParams,
    riskLevel: "write",
    timeoutSeconds: Math.ceil((endpoint?.timeoutMs ?? 60_000) / 1000) + 5,
    readinessDetail: () => mediaReadiness(endpoint, "image"),
    async execute(args, ctx): Promise<ToolResult> {
      if (!endpoint || !mediaReadiness(endpoint, "image").ready) {
        return toolFailure("not_ready", mediaReadiness(endpoint, "image").detail);
      }
      const rel = args.path ?? `images/${ctx.idempotencyKey.slice(0, 16)}.png`;
      const target = await planWriteInside(ctx.workspace, rel);
      if (!target.ok) return toolFailure("denied", `image_generate: ${target.problem}`);
      const what = `the image model ${endpoint.model}`;
      const answer = await postToProvider(
        options,
        endpoint,
        "images/generations",
        {
          model: endpoint.model,
          prompt: args.prompt,
          size: args.size ?? "1024x1024",
          n: 1,
          response_format: "b64_json",
        },
        what,
      );
      if (!answer.ok) return answer.result;
      const json = await readJson(answer.response, what);
      if (!json.ok) return json.result;
      const parsed = ImageAnswer.safeParse(json.body);
      const first = parsed.success ? parsed.data.data[0] : undefined;
      if (!first?.b64_json)
        return toolFailure("business", `${what} answered without base64 image data (b64_json)`);
      const bytes = Buffer.from(first.b64_json, "base64");
      await writeInside(target, bytes);
      const revised = first.revised_prompt ? `\nRevised prompt: ${first.revised_prompt}` : "";
      return toolSuccess(`Saved the image to ${rel} (${bytes.length} bytes).${revised}`, {
        path: rel,
        bytes: bytes.length,
      });
    },
  });
}
