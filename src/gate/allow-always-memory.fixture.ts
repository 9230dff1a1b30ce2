import type { AllowAlwaysRecord, AllowAlwaysStore } from "./allow-always.js";

/** An in-memory allow-always store, for tests of the gate. */
export function memoryAllowAlwaysStore(records: readonly AllowAlwaysRecord[] = []): AllowAlwaysStore {
  return {
    async find(tool, scopes) {
      return records.filter(
        (r) => r.tool === tool && scopes.some((s) => s.scope === r.scope && s.scopeId === r.scopeId),
      );
    },
  };
}
