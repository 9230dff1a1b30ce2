import { RunnerError } from "../shared/index.js";

/**
 * Where a worker sends its spans, from the OpenTelemetry environment variables (the names and
 * meanings of the OTel specification). Off unless an endpoint is set; a value that is set but
 * unusable is a start-up error (TELEMETRY_CONFIG_INVALID) naming the variable, never a silent
 * fallback to off.
 */
export type OtelSettings =
  | { readonly enabled: false; readonly why: string }
  | {
      readonly enabled: true;
      /** Full URL spans are POSTed to (OTLP over HTTP, JSON encoding). */
      readonly url: string;
      /** Extra request headers (e.g. an API key); never logged. */
      readonly headers: Readonly<Record<string, string>>;
      /** `service.name` of the resource; default "echo-runner". */
      readonly serviceName: string;
      /** How long finished spans wait to be sent in one batch, ms (OTEL_BSP_SCHEDULE_DELAY, default 5000). */
      readonly batchDelayMs: number;
    };

const DEFAULT_SERVICE_NAME = "echo-runner";
const DEFAULT_BATCH_DELAY_MS = 5000;

function invalid(message: string, variable: string): RunnerError {
  return new RunnerError("TELEMETRY_CONFIG_INVALID", message, { data: { variable } });
}

/** The variable's value; the specification reads an empty value as unset. */
function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** A URL as it may be shown: without user info and query (either may hold a credential). */
function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function parseUrl(value: string, variable: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(
      `${variable} is not a URL (it starts "${value.slice(0, 40)}"); set it to the collector's http(s) address, e.g. http://localhost:4318, or unset it to export no traces`,
      variable,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalid(
      `${variable} (${shown(url)}) must be an http: or https: URL: echo-runner exports OTLP over HTTP`,
      variable,
    );
  }
  return url;
}

/** `key=value,key2=value2` with URL-encoded values (the specification's W3C baggage form). */
function parseHeaders(value: string, variable: string): Record<string, string> {
  const headers: Record<string, string> = {};
  value.split(",").forEach((entry, i) => {
    if (entry.trim() === "") return;
    const eq = entry.indexOf("=");
    const key = eq > 0 ? entry.slice(0, eq).trim() : "";
    if (key === "" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      // The value is not echoed: headers carry API keys.
      throw invalid(
        `${variable}: entry ${i + 1} is not key=value with a header name as its key; write it as name=value,name2=value2`,
        variable,
      );
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      throw invalid(`${variable}: the value of "${key}" is not valid URL encoding`, variable);
    }
    headers[key] = decoded;
  });
  return headers;
}

/**
 * Reads OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL) or
 * OTEL_EXPORTER_OTLP_ENDPOINT (a base: `/v1/traces` is added), OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL
 * (http/json only), OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, OTEL_SERVICE_NAME and OTEL_BSP_SCHEDULE_DELAY.
 */
export function resolveOtelSettings(env: NodeJS.ProcessEnv): OtelSettings {
  if (read(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") {
    return { enabled: false, why: "OTEL_SDK_DISABLED=true" };
  }
  const exporter = read(env, "OTEL_TRACES_EXPORTER")?.toLowerCase();
  if (exporter === "none") return { enabled: false, why: "OTEL_TRACES_EXPORTER=none" };
  if (exporter !== undefined && exporter !== "otlp") {
    throw invalid(
      `OTEL_TRACES_EXPORTER=${exporter} is not supported: echo-runner exports traces over OTLP only (otlp), or not at all (none)`,
      "OTEL_TRACES_EXPORTER",
    );
  }
  const tracesEndpoint = read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const baseEndpoint = read(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  let url: URL;
  if (tracesEndpoint !== undefined) {
    url = parseUrl(tracesEndpoint, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  } else if (baseEndpoint !== undefined) {
    const base = parseUrl(baseEndpoint, "OTEL_EXPORTER_OTLP_ENDPOINT");
    url = new URL(base.href);
    url.pathname = `${base.pathname.replace(/\/+$/, "")}/v1/traces`;
  } else {
    return { enabled: false, why: "no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" };
  }
  for (const variable of ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]) {
    const protocol = read(env, variable);
    if (protocol === undefined) continue;
    if (protocol !== "http/json") {
      throw invalid(
        `${variable}=${protocol} is not supported: echo-runner sends OTLP over HTTP with JSON encoding; set it to http/json or unset it`,
        variable,
      );
    }
    break;
  }
  const headers = {
    ...parseHeaders(read(env, "OTEL_EXPORTER_OTLP_HEADERS") ?? "", "OTEL_EXPORTER_OTLP_HEADERS"),
    ...parseHeaders(
      read(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS") ?? "",
      "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    ),
  };
  const delay = read(env, "OTEL_BSP_SCHEDULE_DELAY");
  if (delay !== undefined && !/^\d{1,7}$/.test(delay)) {
    throw invalid(
      `OTEL_BSP_SCHEDULE_DELAY=${delay.slice(0, 20)} is not a whole number of milliseconds (0–9999999)`,
      "OTEL_BSP_SCHEDULE_DELAY",
    );
  }
  return {
    enabled: true,
    url: url.href,
    headers,
    serviceName: read(env, "OTEL_SERVICE_NAME") ?? DEFAULT_SERVICE_NAME,
    batchDelayMs: delay === undefined ? DEFAULT_BATCH_DELAY_MS : Number(delay),
  };
}

/** The settings' URL as logs may show it (no user info, no query). */
export function shownEndpoint(url: string): string {
  return shown(new URL(url));
}
