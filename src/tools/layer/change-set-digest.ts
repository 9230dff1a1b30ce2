import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { withHeldEntry } from "../beneath/held-entry.js";
import type { ChangeSet } from "./change-set.js";

/**
 * SHA-256 over a change set: every change as it lands (kind, path, mode, link target) and every
 * written file's bytes, read from the layer's upper folder by descriptor without following a link.
 * A person approves a landing by this digest; a set that differs in one byte is another set.
 */
export async function changeSetDigest(set: ChangeSet, upper: string): Promise<string> {
  const hash = createHash("sha256");
  for (const change of set.changes) {
    hash.update(JSON.stringify(change));
    hash.update("\n");
    if (change.kind !== "write") continue;
    await withHeldEntry(`${upper}/${change.path}`, {}, async (entry) => {
      const file = await open(entry.at, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        for await (const chunk of file.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
      } finally {
        await file.close();
      }
    });
    hash.update("\n");
  }
  return hash.digest("hex");
}
