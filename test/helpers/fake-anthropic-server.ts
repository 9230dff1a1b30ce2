import {
  reply as chatReply,
  type FakeChatServer,
  type FakeHandler,
  type FakeReply,
  type RecordedRequest,
  startFakeChatServer,
} from "./fake-chat-server.js";

/** A tool call in a scripted Anthropic message (a `tool_use` block). */
export interface FakeToolUse {
  name: string;
  input?: Record<string, unknown>;
  id?: string;
}

/** Usage as the Messages API reports it. */
export interface FakeAnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

const DEFAULT_USAGE: FakeAnthropicUsage = { input_tokens: 11, output_tokens: 7 };

function message(content: unknown[], stopReason: string, usage: FakeAnthropicUsage): FakeReply {
  return {
    kind: "json",
    status: 200,
    body: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model: "claude-fake",
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
    },
  };
}

/** Builders of replies in the Messages API wire format (as documented by Anthropic). */
export const anthropicReply = {
  /** A message with final text (`end_turn` unless told otherwise, e.g. `max_tokens`, `refusal`). */
  text(text: string, stopReason = "end_turn", usage = DEFAULT_USAGE): FakeReply {
    return message([{ type: "text", text }], stopReason, usage);
  },
  /** A message asking for tools: `tool_use` blocks, with optional text before them. */
  toolUse(calls: readonly FakeToolUse[], text: string | null = null, usage = DEFAULT_USAGE): FakeReply {
    const blocks: unknown[] = text ? [{ type: "text", text }] : [];
    calls.forEach((call, i) => {
      blocks.push({
        type: "tool_use",
        id: call.id ?? `toolu_fake_${i}`,
        name: call.name,
        input: call.input ?? {},
      });
    });
    return message(blocks, "tool_use", usage);
  },
  /** An error body `{type: "error", error: {type, message}}` with the given status and headers. */
  error(status: number, type: string, text: string, headers?: Record<string, string>): FakeReply {
    return {
      kind: "json",
      status,
      body: { type: "error", error: { type, message: text }, request_id: "req_fake" },
      ...(headers ? { headers } : {}),
    };
  },
  hang: chatReply.hang,
  destroy: chatReply.destroy,
};

/**
 * What a real Messages API server rejects with 400 before answering: no max_tokens, a first turn
 * that is not the user's, two turns of one role in a row, a tool_use without its tool_result in the
 * very next user turn, or a tool_result answering no tool_use. Undefined when the request is valid.
 */
export function anthropicRequestProblem(body: unknown): string | undefined {
  const b = body as { max_tokens?: unknown; messages?: unknown };
  if (typeof b?.max_tokens !== "number") return "max_tokens: Field required";
  if (!Array.isArray(b.messages) || b.messages.length === 0)
    return "messages: at least one message is required";
  const messages = b.messages as { role: string; content: unknown }[];
  if (messages[0]?.role !== "user") return "messages: first message must use the user role";
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "user" && m.role !== "assistant") {
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    }
    if (i > 0 && messages[i - 1]!.role === m.role) return `messages.${i}: roles must alternate`;
    const blocks = Array.isArray(m.content)
      ? (m.content as { type: string; id?: string; tool_use_id?: string }[])
      : [];
    const uses = blocks.filter((x) => x.type === "tool_use").map((x) => x.id);
    if (m.role === "assistant" && uses.length > 0) {
      const next = messages[i + 1];
      const answered = new Set(
        (Array.isArray(next?.content) ? (next.content as { type: string; tool_use_id?: string }[]) : [])
          .filter((x) => x.type === "tool_result")
          .map((x) => x.tool_use_id),
      );
      for (const id of uses) {
        if (!answered.has(id)) {
          return `messages.${i + 1}: tool_use ids were found without tool_result blocks immediately after: ${id}`;
        }
      }
    }
    if (m.role === "user") {
      const previous = messages[i - 1];
      const asked = new Set(
        (Array.isArray(previous?.content) ? (previous.content as { type: string; id?: string }[]) : [])
          .filter((x) => x.type === "tool_use")
          .map((x) => x.id),
      );
      for (const x of blocks) {
        if (x.type === "tool_result" && !asked.has(x.tool_use_id)) {
          return `messages.${i}: unexpected tool_use_id found in tool_result blocks: ${x.tool_use_id}`;
        }
      }
    }
  }
  return undefined;
}

/**
 * A real HTTP server on 127.0.0.1 answering POST /v1/messages in the Messages API format. Invalid
 * requests (see {@link anthropicRequestProblem}) get the API's 400 invalid_request_error, so a
 * client or a pruned history that breaks the format fails the test. `baseUrl` has no version path
 * (the SDK appends /v1/messages).
 */
export async function startFakeAnthropicServer(handler?: FakeHandler): Promise<FakeChatServer> {
  // Replies are queued here, not in the underlying server, so every request is validated first.
  const queue: FakeReply[] = [];
  let current = handler;
  const server = await startFakeChatServer(async (request: RecordedRequest) => {
    const problem = anthropicRequestProblem(request.body);
    if (problem) return anthropicReply.error(400, "invalid_request_error", problem);
    const queued = queue.shift();
    if (queued) return queued;
    if (!current)
      return anthropicReply.error(500, "api_error", `no reply scripted for request #${request.index}`);
    return current(request);
  }, "/v1/messages");
  return {
    baseUrl: server.baseUrl.replace(/\/v1$/, ""),
    get requests() {
      return server.requests;
    },
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setHandler: (next) => {
      current = next;
    },
    close: () => server.close(),
  };
}
