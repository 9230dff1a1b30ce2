/** One piece of a file as the knowledge index stores it. */
export interface KnowledgeChunk {
  /** `<path>#<n>`: stable for a file's n-th chunk, so an updated file replaces its own chunks. */
  readonly id: string;
  /** Workspace-relative path with forward slashes. */
  readonly path: string;
  /** 1-based line range. */
  readonly startLine: number;
  readonly endLine: number;
  /** The last Markdown heading before or at the chunk's start ("" when none). */
  readonly heading: string;
  readonly text: string;
}

/** Target size of a chunk, characters: small enough to cite, large enough to carry context. */
export const CHUNK_MAX_CHARS = 1_200;
const CHUNK_MIN_CHARS = 200;
const HEADING = /^#{1,6}\s+(.+)$/;

/**
 * Splits a file into chunks of whole lines of about {@link CHUNK_MAX_CHARS}, starting a new chunk
 * at a Markdown heading (once the current one has some substance) or a blank line near the limit,
 * so chunks follow the document's own structure. A single over-long line is cut.
 */
export function chunkText(path: string, text: string): KnowledgeChunk[] {
  const lines = text.split(/\r?\n/);
  const chunks: KnowledgeChunk[] = [];
  let buffer: string[] = [];
  let size = 0;
  let start = 1;
  let heading = "";
  let chunkHeading = "";
  const flush = (endLine: number) => {
    const body = buffer.join("\n").trim();
    if (body !== "") {
      chunks.push({
        id: `${path}#${chunks.length}`,
        path,
        startLine: start,
        endLine,
        heading: chunkHeading,
        text: body,
      });
    }
    buffer = [];
    size = 0;
    start = endLine + 1;
    chunkHeading = heading;
  };
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.length > CHUNK_MAX_CHARS ? raw.slice(0, CHUNK_MAX_CHARS) : raw;
    const match = HEADING.exec(line);
    const breakHere =
      (match && size >= CHUNK_MIN_CHARS) ||
      size + line.length > CHUNK_MAX_CHARS ||
      (line.trim() === "" && size >= CHUNK_MAX_CHARS * 0.75);
    if (breakHere && buffer.length > 0) flush(lineNo - 1);
    if (match) {
      heading = (match[1] ?? "").trim();
      if (buffer.length === 0) chunkHeading = heading;
    }
    if (buffer.length === 0) start = lineNo;
    buffer.push(line);
    size += line.length + 1;
  });
  flush(lines.length);
  return chunks;
}
