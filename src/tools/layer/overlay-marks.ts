import { execa } from "execa";
import { RunnerError } from "../../shared/index.js";

/**
 * The marks overlayfs keeps on a layer's upper folder as `user.overlay.*` extended attributes
 * (mounted with `userxattr`, as an unprivileged mount must be): `opaque` on a folder that replaced
 * the lower one (removed and made again: what was below is gone), `redirect` on a folder renamed
 * within the layer, `metacopy` on a file whose data was not copied up. Node cannot read extended
 * attributes, so getfattr (Debian's `attr`) dumps them for the whole tree in one process, never
 * following a link (-h) nor leaving the tree by one (-P).
 */
export interface OverlayMarks {
  readonly opaque: boolean;
  readonly redirect: boolean;
  readonly metacopy: boolean;
}

/** Decodes getfattr's escapes in a file name: `\ooo` octal bytes and `\\`. */
export function decodeGetfattrName(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === "\\" && /^[0-7]{3}$/.test(text.slice(i + 1, i + 4))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    } else if (char === "\\" && text[i + 1] === "\\") {
      bytes.push(0x5c);
      i += 1;
    } else {
      bytes.push(...Buffer.from(char, "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Parses `getfattr -d --absolute-names` output into marks by path relative to `root` ("" = root). */
export function parseGetfattrDump(output: string, root: string): Map<string, OverlayMarks> {
  const marks = new Map<string, OverlayMarks>();
  let current: string | undefined;
  let attrs = new Set<string>();
  const flush = () => {
    if (current === undefined) return;
    const rel =
      current === root ? "" : current.startsWith(`${root}/`) ? current.slice(root.length + 1) : undefined;
    if (rel !== undefined) {
      const mark = {
        opaque: attrs.has('user.overlay.opaque="y"'),
        redirect: [...attrs].some((a) => a.startsWith("user.overlay.redirect=")),
        metacopy: [...attrs].some((a) => a.startsWith("user.overlay.metacopy")),
      };
      if (mark.opaque || mark.redirect || mark.metacopy) marks.set(rel, mark);
    }
    current = undefined;
    attrs = new Set();
  };
  for (const line of output.split("\n")) {
    if (line.startsWith("# file: ")) {
      flush();
      current = decodeGetfattrName(line.slice("# file: ".length));
    } else if (line !== "" && current !== undefined) {
      attrs.add(line);
    }
  }
  flush();
  return marks;
}

/** The marks of every entry under `upper` (an absolute real path). */
export async function readOverlayMarks(
  upper: string,
  getfattr = "/usr/bin/getfattr",
): Promise<Map<string, OverlayMarks>> {
  const result = await execa(
    getfattr,
    [
      "--recursive",
      "--no-dereference",
      "--physical",
      "--absolute-names",
      "--dump",
      "--match",
      "^user\\.overlay\\.",
      "--",
      upper,
    ],
    {
      reject: false,
      extendEnv: false,
      env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
      stripFinalNewline: false,
    },
  );
  if (result.failed) {
    throw new RunnerError(
      "TOOL_NOT_READY",
      `reading the layer's overlay marks with ${getfattr} failed (${result.shortMessage}); install Debian's attr package`,
    );
  }
  return parseGetfattrDump(String(result.stdout), upper);
}
