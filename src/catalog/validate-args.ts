import type { Static, TSchema } from "typebox";
import { Compile, type Validator } from "typebox/compile";
import type { AnyTool, Tool } from "./tool.js";
import { type ToolFailure, toolFailure } from "./tool-result.js";

/** One invalid field of a tool call: its dotted path ("" for the arguments as a whole) and the problem. */
export interface InvalidField {
  readonly field: string;
  readonly problem: string;
}

/** Outcome of {@link validateToolArgs}: the typed arguments, or a `validation` failure result. */
export type ArgsValidation<T extends TSchema> =
  | { readonly ok: true; readonly args: Static<T> }
  | { readonly ok: false; readonly result: ToolFailure; readonly fields: readonly InvalidField[] };

// Compiled once per schema object; the schema is immutable once a tool is defined.
const VALIDATORS = new WeakMap<TSchema, Validator>();

function validatorFor(schema: TSchema): Validator {
  let validator = VALIDATORS.get(schema);
  if (!validator) {
    validator = Compile(schema) as unknown as Validator;
    VALIDATORS.set(schema, validator);
  }
  return validator;
}

/**
 * Checks a call's arguments against the tool's TypeBox schema before anything else sees them. An
 * invalid call becomes a `validation` result naming every bad field and what is allowed; this
 * function never throws for bad input.
 */
export function validateToolArgs<T extends TSchema>(tool: Tool<T>, args: unknown): ArgsValidation<T> {
  const validator = validatorFor(tool.parameters);
  if (validator.Check(args)) return { ok: true, args: args as Static<T> };
  const fields = describeErrors(validator.Errors(args));
  const list = fields
    .map((f) => (f.field === "" ? `arguments ${f.problem}` : `${f.field}: ${f.problem}`))
    .join("; ");
  const result = toolFailure("validation", `Invalid arguments for tool "${tool.name}": ${list}`, { fields });
  return { ok: false, result, fields };
}

/** Same as {@link validateToolArgs} for a tool whose schema type is not known statically. */
export function validateAnyToolArgs(tool: AnyTool, args: unknown): ArgsValidation<TSchema> {
  return validateToolArgs(tool, args);
}

interface RawError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: object;
  message: string;
}

function describeErrors(errors: readonly RawError[]): InvalidField[] {
  const out: InvalidField[] = [];
  const seen = new Set<string>();
  const add = (field: string, problem: string) => {
    const key = `${field}\u0000${problem}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, problem });
    }
  };
  for (const error of errors) {
    // Branch errors of a union repeat what its anyOf/oneOf error says; the false-schema error of
    // additionalProperties repeats the additionalProperties error.
    if (/\/(anyOf|oneOf)\/\d+/.test(error.schemaPath)) continue;
    if (error.keyword === "boolean" && error.schemaPath.endsWith("/additionalProperties")) continue;
    const field = pointerToField(error.instancePath);
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case "required":
        for (const name of (params.requiredProperties as string[] | undefined) ?? []) {
          add(joinField(field, name), "is required");
        }
        break;
      case "additionalProperties":
        for (const name of (params.additionalProperties as string[] | undefined) ?? []) {
          add(joinField(field, name), "is not allowed (unknown property)");
        }
        break;
      case "enum":
        add(field, `must be one of ${formatValues(params.allowedValues as unknown[])}`);
        break;
      case "const":
        add(field, `must be ${JSON.stringify(params.allowedValue)}`);
        break;
      case "anyOf":
      case "oneOf":
        add(field, unionProblem(errors, error));
        break;
      default:
        add(field, error.message);
    }
  }
  return out;
}

/** The allowed literals of a union of constants, when that is what the union is. */
function unionProblem(errors: readonly RawError[], union: RawError): string {
  const prefix = `${union.schemaPath}/${union.keyword}/`;
  const branches = errors.filter(
    (e) => e.instancePath === union.instancePath && e.schemaPath.startsWith(prefix),
  );
  const constants = branches.filter((e) => e.keyword === "const");
  if (constants.length > 0 && constants.length === branches.length) {
    return `must be one of ${formatValues(constants.map((e) => (e.params as { allowedValue: unknown }).allowedValue))}`;
  }
  return "does not match any allowed form";
}

function formatValues(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(", ");
}

function pointerToField(pointer: string): string {
  if (pointer === "") return "";
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

function joinField(parent: string, name: string): string {
  return parent === "" ? name : `${parent}.${name}`;
}
