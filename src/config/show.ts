import type { LoadedConfig } from "./load.js";
import { originsOf } from "./merge.js";
import { maskUrlCredentials } from "./secrets.js";

/** One effective value with its source, for `config show`. */
export interface ShownValue {
  path: string;
  value: unknown;
  origins: readonly string[];
  /** For `*_env` keys: whether the named variable is set (its value is never shown). */
  secretSet?: boolean;
}

const URL_KEYS = /(^|\.)(url|base_url|public_url)$/;

function maskValue(path: string, value: unknown): unknown {
  if (typeof value === "string" && URL_KEYS.test(path)) return maskUrlCredentials(value);
  return value;
}

/** Every leaf of the effective config with its source; URLs with credentials are masked. */
export function effectiveValues(loaded: LoadedConfig, env: NodeJS.ProcessEnv): ShownValue[] {
  const out: ShownValue[] = [];
  const walk = (node: unknown, path: string) => {
    if (node !== null && typeof node === "object" && !Array.isArray(node) && Object.keys(node).length > 0) {
      for (const [key, value] of Object.entries(node)) walk(value, path ? `${path}.${key}` : key);
      return;
    }
    const shown: ShownValue = {
      path,
      value: maskValue(path, node),
      origins: originsOf(loaded.origins, path),
    };
    if (path.endsWith("_env") && typeof node === "string") shown.secretSet = Boolean(env[node]);
    out.push(shown);
  };
  walk(loaded.config, "");
  return out;
}

/** The masked effective config as one JSON-able object (same masking as {@link effectiveValues}). */
export function maskedConfig(loaded: LoadedConfig): unknown {
  const copy = (node: unknown, path: string): unknown => {
    if (Array.isArray(node)) return node.map((item, i) => copy(item, `${path}.${i}`));
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(
        Object.entries(node).map(([k, v]) => [k, copy(v, path ? `${path}.${k}` : k)]),
      );
    }
    return maskValue(path, node);
  };
  return copy(loaded.config, "");
}

/** Text form: `path = value  (source)`, one line a value. */
export function renderEffectiveConfig(values: readonly ShownValue[]): string {
  return values
    .map((v) => {
      const secret = v.secretSet === undefined ? "" : v.secretSet ? " [variable set]" : " [variable not set]";
      return `${v.path} = ${JSON.stringify(v.value)}${secret}  (${v.origins.join(" + ") || "?"})`;
    })
    .join("\n");
}
