import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { Logger } from "../logging/index.js";
import { type DescribeModel, OtelRunTracer } from "./otel-run-tracer.js";
import type { OtelSettings } from "./otel-settings.js";
import { ScriptedIds } from "./span-ids.js";

/** The instrumentation scope the runner's spans are recorded under. */
const SCOPE = "echo-runner";

/**
 * Says when sending spans starts failing and when it works again (once each, not per batch): the
 * SDK would report through its global diagnostics logger, which the runner does not install.
 */
function loggingExporter(inner: SpanExporter, logger: Logger): SpanExporter {
  let failing = false;
  return {
    export(spans: ReadableSpan[], done: Parameters<SpanExporter["export"]>[1]) {
      inner.export(spans, (result) => {
        // ExportResultCode.SUCCESS is 0.
        if (result.code !== 0 && !failing) {
          failing = true;
          logger.warn(
            { err: result.error?.message ?? "unknown", spans: spans.length },
            "sending run traces failed; spans are dropped until the collector answers",
          );
        } else if (result.code === 0 && failing) {
          failing = false;
          logger.info("sending run traces works again");
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    ...(inner.forceFlush ? { forceFlush: () => inner.forceFlush?.() ?? Promise.resolve() } : {}),
  };
}

/** Starts the SDK (provider, batch processor, OTLP/HTTP JSON exporter) for enabled settings. */
export async function startOtelRunTracer(
  settings: Extract<OtelSettings, { enabled: true }>,
  describeModel: DescribeModel,
  logger: Logger,
): Promise<OtelRunTracer> {
  const exporter = new OTLPTraceExporter({ url: settings.url, headers: { ...settings.headers } });
  const ids = new ScriptedIds();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
    idGenerator: ids,
    // Every run is traced: a sampled-out attempt would leave its run's trace with holes.
    sampler: new AlwaysOnSampler(),
    spanProcessors: [
      new BatchSpanProcessor(loggingExporter(exporter, logger), {
        scheduledDelayMillis: settings.batchDelayMs,
      }),
    ],
  });
  let stopped: Promise<void> | undefined;
  return new OtelRunTracer({
    tracer: provider.getTracer(SCOPE),
    ids,
    describeModel,
    // Flushes what is buffered, then stops; a second call waits for the first.
    shutdown: () => {
      stopped ??= provider.shutdown().catch((err: unknown) => {
        logger.warn({ err: String(err) }, "flushing run traces at shutdown failed");
      });
      return stopped;
    },
  });
}
