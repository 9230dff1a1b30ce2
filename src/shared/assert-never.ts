/** Ends every switch over a closed set, so adding a member breaks the build where it matters. */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
