import { randomBytes, randomUUID } from "node:crypto";

/** Makes new ids. Injected where tests need determinism. */
export type IdFactory = () => string;

/** Random UUID v4 ids. */
export const randomId: IdFactory = () => randomUUID();

/** A random URL-safe token of `bytes` bytes (default 32 = 256 bits). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
