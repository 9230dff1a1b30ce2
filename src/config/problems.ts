import type { z } from "zod";
import { VALUE_IN_MESSAGE } from "./config-issue.js";
import { originsOf, valueAtPath } from "./merge.js";

/** One thing wrong with the merged config, ready to print. */
export interface ConfigProblem {
  /** Dotted path of the key, e.g. "permissions.approval.mode". */
  path: string;
  /** What is wrong and what is allowed. */
  message: string;
  /** The sources that set the value (file paths or "environment"). */
  origins: readonly string[];
}

const SECRET_LIKE_KEY = /(password|passwd|secret|token|api_key|apikey)$/i;

function describeValue(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The keys a strict object schema allows at `path` (best effort, for "did you mean"). */
function allowedKeysAt(schema: z.ZodType, path: readonly (string | number)[]): string[] {
  let node: unknown = schema;
  const step = (n: unknown): unknown => {
    const def = (n as { def?: { type?: string } }).def as Record<string, unknown> | undefined;
    if (!def) return undefined;
    if (def.type === "optional" || def.type === "nullable" || def.type === "default")
      return step(def.innerType);
    return n;
  };
  for (const segment of path) {
    node = step(node);
    const def = (node as { def?: Record<string, unknown> } | undefined)?.def;
    if (!def) return [];
    if (def.type === "object") node = (def.shape as Record<string, unknown>)[String(segment)];
    else if (def.type === "record") node = def.valueType;
    else if (def.type === "array") node = def.element;
    else if (def.type === "union") {
      const options = def.options as unknown[];
      node = options.find((o) => (o as { def?: { type?: string } }).def?.type === "object");
    } else return [];
  }
  node = step(node);
  const def = (node as { def?: Record<string, unknown> } | undefined)?.def;
  if (def?.type === "object") return Object.keys(def.shape as Record<string, unknown>);
  if (def?.type === "union") {
    const keys = new Set<string>();
    for (const option of def.options as { def?: Record<string, unknown> }[]) {
      if (option.def?.type === "object") for (const k of Object.keys(option.def.shape as object)) keys.add(k);
    }
    return [...keys];
  }
  return [];
}

/** zod's type names in the words of the YAML an operator writes ("record" means nothing there). */
const YAML_KINDS: Readonly<Record<string, string>> = {
  record: "a mapping (name: value, one per line)",
  object: "a mapping of keys (key: value)",
  array: "a list ([a, b] or one `- item` per line)",
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
};

function yamlKind(expected: string): string {
  return YAML_KINDS[expected] ?? expected;
}

/** Turns zod issues into problems that name the path, the bad value, what is allowed, and the source. */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  data: unknown,
  origins: ReadonlyMap<string, readonly string[]>,
  schema: z.ZodType,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    const segments = issue.path.map(String);
    const base = segments.join(".");
    const { value } = valueAtPath(data, segments);
    switch (issue.code) {
      case "unrecognized_keys": {
        const allowed = allowedKeysAt(schema, issue.path as (string | number)[]);
        for (const key of issue.keys) {
          const path = base ? `${base}.${key}` : key;
          const hint = SECRET_LIKE_KEY.test(key)
            ? ` Secrets are never written in config: name the environment variable instead (e.g. ${key}_env).`
            : "";
          problems.push({
            path,
            message: `unknown key "${key}"${allowed.length ? `; allowed keys here: ${allowed.join(", ")}` : ""}.${hint}`,
            origins: originsOf(origins, path),
          });
        }
        break;
      }
      case "invalid_value":
        problems.push({
          path: base,
          message: `${describeValue(value)} is not allowed; allowed values: ${issue.values.map(String).join(", ")}`,
          origins: originsOf(origins, base),
        });
        break;
      case "invalid_type":
        problems.push({
          path: base,
          message:
            value === undefined
              ? `missing; expected ${yamlKind(issue.expected)}`
              : `${describeValue(value)} has the wrong type; expected ${yamlKind(issue.expected)}`,
          origins: originsOf(origins, base),
        });
        break;
      default:
        problems.push({
          path: base,
          message:
            issue.code === "custom" && issue.params?.[VALUE_IN_MESSAGE]
              ? issue.message
              : `${describeValue(value)}: ${issue.message}`,
          origins: originsOf(origins, base),
        });
    }
  }
  return problems;
}

/** One line a problem, e.g. `permissions.approval.mode: "smrt" is not allowed; ... (from ./x.yaml)`. */
export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems
    .map(
      (p) =>
        `  - ${p.path || "(top level)"}: ${p.message}${p.origins.length ? ` (from ${p.origins.join(", ")})` : ""}`,
    )
    .join("\n");
}
