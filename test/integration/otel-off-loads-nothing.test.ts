import { resolve } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/cli-process.js";

/**
 * With no OTLP endpoint, tracing costs nothing: building a worker's run tracer from the compiled
 * runtime (dist/, built by the test run's globalSetup) loads no OpenTelemetry SDK module (no provider,
 * processor, exporter or resource). With an endpoint the same script loads them, so the check can see it.
 */

/** `--import` for a node that writes every file it loads to stderr (`loaded <url>`), from a module hook. */
const TRACE_LOADS = `data:text/javascript,${encodeURIComponent(
  `import { register } from "node:module"; register(${JSON.stringify(
    `data:text/javascript,${encodeURIComponent(
      'import { writeSync } from "node:fs"; export async function load(url, context, next) { if (url.startsWith("file:")) writeSync(2, "loaded " + url + "\\n"); return next(url, context); }',
    )}`,
  )});`,
)}`;

async function buildTracer(env: Record<string, string>) {
  const runtime = resolve(REPO_ROOT, "dist/src/runtime/index.js");
  const logging = resolve(REPO_ROOT, "dist/src/logging/index.js");
  const script = [
    `const { runTracerFromConfig } = await import(${JSON.stringify(runtime)});`,
    `const { createLogger } = await import(${JSON.stringify(logging)});`,
    "const tracer = await runTracerFromConfig({ models: {} }, JSON.parse(process.env.TRACE_ENV), createLogger({ level: 'silent', format: 'json' }));",
    "process.stdout.write(String(tracer.exporting));",
    "await tracer.shutdown();",
  ].join("\n");
  const result = await execa(
    process.execPath,
    ["--import", TRACE_LOADS, "--input-type=module", "-e", script],
    { cwd: REPO_ROOT, reject: false, timeout: 60_000, env: { TRACE_ENV: JSON.stringify(env) } },
  );
  const otel = [...result.stderr.matchAll(/^loaded file:\/\/(.*)$/gm)]
    .map((m) => m[1] as string)
    .filter((file) => file.includes("/node_modules/@opentelemetry/"));
  return { code: result.exitCode, exporting: result.stdout, otel, stderr: result.stderr };
}

describe("a worker's run tracer", () => {
  it("loads no OpenTelemetry module when no endpoint is set", async () => {
    const off = await buildTracer({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_HEADERS: "a=b" });
    expect(off.code, off.stderr).toBe(0);
    expect(off.exporting).toBe("false");
    // Only the API, which the Anthropic client imports for its own optional spans (no-ops while no
    // provider is registered globally, and the runner registers none): no SDK, exporter or resource.
    expect(off.otel.filter((f) => !f.includes("/node_modules/@opentelemetry/api/"))).toEqual([]);
  }, 60_000);

  it("loads the SDK and its OTLP exporter when one is", async () => {
    // Port 9 (discard) on loopback: nothing is sent, the tracer is only built and shut down.
    const on = await buildTracer({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    expect(on.code, on.stderr).toBe(0);
    expect(on.exporting).toBe("true");
    expect(on.otel.some((f) => f.includes("/sdk-trace-base/"))).toBe(true);
    expect(on.otel.some((f) => f.includes("/exporter-trace-otlp-http/"))).toBe(true);
  }, 60_000);
});
