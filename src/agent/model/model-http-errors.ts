import type { ModelErrorCode } from "../../shared/index.js";
import { RunnerError } from "../../shared/index.js";

/**
 * What the Anthropic and OpenAI-compatible clients share when they turn a failed request into a
 * MODEL_* error: the error itself, how a server's message is shown, and the rules by HTTP status
 * that do not depend on the provider. Each client applies its own rules first (rate limiting,
 * overload, the provider's wording of "too long") and hands the rest to {@link statusModelError}.
 */

/** A RunnerError with a MODEL_* code. */
export function modelError(
  code: ModelErrorCode,
  message: string,
  cause?: unknown,
  data: Record<string, unknown> = {},
): RunnerError {
  return new RunnerError(code, message, { cause, data });
}

/** A server's text on one line, at most 300 characters. */
export function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/** A request the server answered with an error status, as the error message describes it. */
export interface FailedModelRequest {
  /** The server, as messages name it. */
  readonly where: string;
  readonly model: string;
  /** Status and the server's message, shown in parentheses. */
  readonly detail: string;
  readonly cause: unknown;
  readonly data: Record<string, unknown>;
}

/** The request's history is longer than the model takes: the context budget must shrink it. */
export function contextTooLongError(failed: FailedModelRequest): RunnerError {
  const { where, model, detail, cause, data } = failed;
  return modelError(
    "MODEL_CONTEXT_TOO_LONG",
    `Model server ${where} rejected the request as too long for model "${model}" (${detail}); lower the agent's context_budget or the model's context_window`,
    cause,
    data,
  );
}

/**
 * The error of a status no provider rule claimed: a timeout (`timeoutStatuses`), a server failure
 * (5xx), refused credentials (401, 403), else a request the server rejects.
 */
export function statusModelError(
  failed: FailedModelRequest,
  status: number,
  timeoutStatuses: readonly number[],
): RunnerError {
  const { where, model, detail, cause, data } = failed;
  if (timeoutStatuses.includes(status)) {
    return modelError("MODEL_TIMEOUT", `Model server ${where} timed out (${detail})`, cause, data);
  }
  if (status >= 500)
    return modelError("MODEL_UNAVAILABLE", `Model server ${where} failed (${detail})`, cause, data);
  if (status === 401 || status === 403) {
    return modelError(
      "MODEL_AUTH_FAILED",
      `Model server ${where} refused the credentials (${detail}); check the API key configured for it`,
      cause,
      data,
    );
  }
  return modelError(
    "MODEL_REQUEST_REJECTED",
    `Model server ${where} rejected the request for model "${model}" (${detail}); check the base URL, model name and tool schemas`,
    cause,
    data,
  );
}

/** A client option that is not what the client can work with. */
export function invalidClientOption(
  client: string,
  name: string,
  allowed: string,
  value: unknown,
): RunnerError {
  return new RunnerError(
    "CONFIG_INVALID",
    `${client} model client: ${name} must be ${allowed}, got ${JSON.stringify(value) ?? String(value)}`,
    { data: { option: name } },
  );
}
