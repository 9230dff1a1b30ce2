import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the fake server received, in arrival order. */
export interface RecordedRequest {
  /** 0-based arrival index. */
  index: number;
  method: string;
  /** Path with query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

/** How the fake server answers one request. */
export type FakeReply =
  | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: "text"; status: number; body: string; headers?: Record<string, string> }
  /** Never answers; the connection stays open until the client gives up or the server closes. */
  | { kind: "hang" }
  /** Drops the connection without an answer. */
  | { kind: "destroy" }
  /** Answers with `then` after `ms` milliseconds (a slow server). */
  | { kind: "delay"; ms: number; then: FakeReply };

/** A tool call in a scripted completion. A string `arguments` is sent as is (e.g. invalid JSON). */
export interface FakeToolCall {
  name: string;
  arguments?: Record<string, unknown> | string;
  id?: string;
}

/** Builders of replies in the chat-completions wire format. */
export const reply = {
  /** A completion with final text content. */
  content(text: string, finishReason = "stop"): FakeReply {
    return completion({ role: "assistant", content: text }, finishReason);
  },
  /** A completion asking for tool calls (with optional text alongside). */
  toolCalls(calls: readonly FakeToolCall[], content: string | null = null): FakeReply {
    return completion(
      {
        role: "assistant",
        content,
        tool_calls: calls.map((call, i) => ({
          id: call.id ?? `call_fake_${i}`,
          type: "function",
          function: {
            name: call.name,
            arguments:
              typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
          },
        })),
      },
      "tool_calls",
    );
  },
  /** An OpenAI-style error body with the given status. */
  error(status: number, message: string, headers?: Record<string, string>): FakeReply {
    return { kind: "json", status, body: { error: { message, type: "fake_error" } }, headers };
  },
  /** Any JSON body. */
  json(status: number, body: unknown, headers?: Record<string, string>): FakeReply {
    return { kind: "json", status, body, headers };
  },
  /** A raw text body. */
  text(status: number, body: string): FakeReply {
    return { kind: "text", status, body };
  },
  hang(): FakeReply {
    return { kind: "hang" };
  },
  destroy(): FakeReply {
    return { kind: "destroy" };
  },
  delayed(ms: number, then: FakeReply): FakeReply {
    return { kind: "delay", ms, then };
  },
};

function completion(message: Record<string, unknown>, finishReason: string): FakeReply {
  return {
    kind: "json",
    status: 200,
    body: {
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "fake-model",
      choices: [{ index: 0, message, finish_reason: finishReason }],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    },
  };
}

/** Decides the reply to a request that no queued reply covers. */
export type FakeHandler = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

/** A running fake chat-completions server. */
export interface FakeChatServer {
  /** Base URL to give a client, e.g. `http://127.0.0.1:40123/v1`. */
  readonly baseUrl: string;
  /** Every request received so far, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Queues replies, used one per request in order before the handler is asked. */
  enqueue(...replies: FakeReply[]): void;
  /** Sets the handler for requests the queue does not cover (e.g. a different answer per request index). */
  setHandler(handler: FakeHandler): void;
  /** Stops the server, dropping hanging connections. */
  close(): Promise<void>;
}

/**
 * Starts a real HTTP server on 127.0.0.1 (port chosen by the OS) that speaks the chat-completions
 * protocol at POST /v1/chat/completions. Unscripted requests get a 500 naming the request index,
 * so a test that forgot a reply fails loudly.
 */
export async function startFakeChatServer(
  handler?: FakeHandler,
  /** The one POST route it answers (the Anthropic-format server uses `/v1/messages`). */
  route = "/v1/chat/completions",
): Promise<FakeChatServer> {
  const requests: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  let current = handler;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Recorded as text.
      }
      const recorded: RecordedRequest = {
        index: requests.length,
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
      };
      requests.push(recorded);
      void answer(recorded, res).catch((err: unknown) => {
        send(res, {
          kind: "json",
          status: 500,
          body: { error: { message: `fake server handler threw: ${err}` } },
        });
      });
    });
  });

  async function answer(request: RecordedRequest, res: ServerResponse): Promise<void> {
    if (request.method !== "POST" || request.path !== route) {
      send(res, reply.error(404, `fake chat server: no route ${request.method} ${request.path}`));
      return;
    }
    const queued = queue.shift();
    const chosen =
      queued ??
      (current
        ? await current(request)
        : reply.error(500, `fake chat server: no reply scripted for request #${request.index}`));
    send(res, chosen);
  }

  function send(res: ServerResponse, chosen: FakeReply): void {
    switch (chosen.kind) {
      case "hang":
        return;
      case "destroy":
        res.socket?.destroy();
        return;
      case "json":
        res.writeHead(chosen.status, { "content-type": "application/json", ...chosen.headers });
        res.end(JSON.stringify(chosen.body));
        return;
      case "text":
        res.writeHead(chosen.status, { "content-type": "text/plain", ...chosen.headers });
        res.end(chosen.body);
        return;
      case "delay": {
        const timer = setTimeout(() => send(res, chosen.then), chosen.ms);
        res.once("close", () => clearTimeout(timer));
        return;
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue(...replies) {
      queue.push(...replies);
    },
    setHandler(next) {
      current = next;
    },
    close() {
      return new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
