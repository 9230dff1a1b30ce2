import Type from "typebox";
import { defineTool, type Tool, type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { planWriteInside, writeInside } from "../inside-path.js";
import {
  type MediaToolOptions,
  mediaReadiness,
  postToProvider,
  type SpeechEndpoint,
} from "./media-provider.js";

/** Audio formats of the speech endpoint. */
export const SPEECH_FORMATS = ["mp3", "wav", "opus", "flac", "aac"] as const;

const SpeechParams = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 4096, description: "The text to speak" }),
    voice: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$", description: "Voice name" }),
    ),
    format: Type.Optional(Type.Enum(SPEECH_FORMATS, { description: "Audio format (default mp3)" })),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: "Where to save the audio in the workspace (default audio/<call id>.<format>)",
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `text_to_speech`: turns text into audio through an OpenAI-compatible `audio/speech` endpoint and
 * saves the file inside the workspace (temporary file, then rename).
 */
export function createTextToSpeechTool(options: MediaToolOptions<SpeechEndpoint>): Tool<typeof SpeechParams> {
  const { endpoint } = options;
  return defineTool({
    name: "text_to_speech",
    description: "Convert text to speech and save the audio file in the workspace.",
    parameters: SpeechParams,
    riskLevel: "write",
    timeoutSeconds: Math.ceil((endpoint?.timeoutMs ?? 60_000) / 1000) + 5,
    readinessDetail: () => mediaReadiness(endpoint, "tts"),
    async execute(args, ctx): Promise<ToolResult> {
      if (!endpoint || !mediaReadiness(endpoint, "tts").ready) {
        return toolFailure("not_ready", mediaReadiness(endpoint, "tts").detail);
      }
      const format = args.format ?? "mp3";
      const rel = args.path ?? `audio/${ctx.idempotencyKey.slice(0, 16)}.${format}`;
      const target = await planWriteInside(ctx.workspace, rel);
      if (!target.ok) return toolFailure("denied", `text_to_speech: ${target.problem}`);
      const what = `the speech model ${endpoint.model}`;
      const answer = await postToProvider(
        options,
        endpoint,
        "audio/speech",
        {
          model: endpoint.model,
          input: args.text,
          voice: args.voice ?? endpoint.voice ?? "alloy",
          response_format: format,
        },
        what,
      );
      if (!answer.ok) return answer.result;
      const bytes = new Uint8Array(await answer.response.arrayBuffer());
      if (bytes.length === 0) return toolFailure("business", `${what} answered with no audio`);
      await writeInside(target, bytes);
      return toolSuccess(`Saved ${format} audio to ${rel} (${bytes.length} bytes).`, {
        path: rel,
        bytes: bytes.length,
      });
    },
  });
}
