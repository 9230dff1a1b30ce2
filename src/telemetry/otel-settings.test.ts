import { describe, expect, it } from "vitest";
import { isRunnerError } from "../shared/index.js";
import { resolveOtelSettings } from "./otel-settings.js";

function refusal(env: NodeJS.ProcessEnv): { message: string; variable: unknown } {
  try {
    resolveOtelSettings(env);
  } catch (err) {
    if (isRunnerError(err, "TELEMETRY_CONFIG_INVALID"))
      return { message: err.message, variable: err.data.variable };
    throw err;
  }
  throw new Error("expected TELEMETRY_CONFIG_INVALID");
}

describe("resolveOtelSettings", () => {
  it.each([
    [{}, "no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "" },
      "no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ],
    [
      { OTEL_EXPORTER_OTLP_HEADERS: "api-key=x", OTEL_SERVICE_NAME: "s" },
      "no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" }, "OTEL_SDK_DISABLED=true"],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" },
      "OTEL_TRACES_EXPORTER=none",
    ],
  ])("is off for %j", (env, why) => {
    expect(resolveOtelSettings(env)).toEqual({ enabled: false, why });
  });

  it.each([
    ["http://collector:4318", "http://collector:4318/v1/traces"],
    ["http://collector:4318/", "http://collector:4318/v1/traces"],
    ["https://otlp.example.test/base/", "https://otlp.example.test/base/v1/traces"],
  ])("adds /v1/traces to the base endpoint %s", (endpoint, url) => {
    expect(resolveOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toMatchObject({
      enabled: true,
      url,
    });
  });

  it("takes the traces endpoint as the whole URL, before the base one", () => {
    const settings = resolveOtelSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces:9999/custom",
    });
    expect(settings).toMatchObject({ enabled: true, url: "http://traces:9999/custom" });
  });

  it("reads headers (URL-encoded values, the traces ones winning), the service name and the batch delay", () => {
    expect(
      resolveOtelSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=a%20b, x-team = red",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=blue",
        OTEL_SERVICE_NAME: "nightly-runner",
        OTEL_BSP_SCHEDULE_DELAY: "250",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      }),
    ).toEqual({
      enabled: true,
      url: "http://c:4318/v1/traces",
      headers: { "x-api-key": "a b", "x-team": "blue" },
      serviceName: "nightly-runner",
      batchDelayMs: 250,
    });
  });

  it("defaults the service name to echo-runner and the batch delay to 5 s", () => {
    expect(resolveOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toMatchObject({
      serviceName: "echo-runner",
      batchDelayMs: 5000,
      headers: {},
    });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }, "OTEL_EXPORTER_OTLP_ENDPOINT", "is not a URL"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, "OTEL_EXPORTER_OTLP_ENDPOINT", "http: or https:"],
    [
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "grpc://c:4317" },
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
      "http: or https:",
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      "OTEL_EXPORTER_OTLP_PROTOCOL",
      "http/json",
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" },
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      "http/json",
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_TRACES_EXPORTER: "zipkin" },
      "OTEL_TRACES_EXPORTER",
      "OTLP only",
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_BSP_SCHEDULE_DELAY: "soon" },
      "OTEL_BSP_SCHEDULE_DELAY",
      "milliseconds",
    ],
  ])("refuses %j naming %s", (env, variable, says) => {
    const { message, variable: named } = refusal(env);
    expect(named).toBe(variable);
    expect(message).toContain(variable);
    expect(message).toContain(says);
  });

  it("names a bad header entry by position, never echoing header values", () => {
    const { message, variable } = refusal({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "x-ok=fine,sk-secret-0123456789",
    });
    expect(variable).toBe("OTEL_EXPORTER_OTLP_HEADERS");
    expect(message).toContain("entry 2");
    expect(message).not.toContain("sk-secret");
    expect(message).not.toContain("fine");
  });

  it("shows an endpoint without its user info or query", () => {
    const { message } = refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://user:pw@c:2121/x?token=t0k" });
    expect(message).toContain("ftp://c:2121/x");
    expect(message).not.toContain("pw");
    expect(message).not.toContain("t0k");
  });
});
