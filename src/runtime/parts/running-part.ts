/** A started part; stop() is idempotent and waits for in-flight work to settle. */
export interface RunningPart {
  stop(): Promise<void>;
}
