import { StringDecoder } from "node:string_decoder";

/**
 * The first `maxBytes` of a process's output (stdout and stderr in arrival order); later bytes are
 * counted and dropped, so a chatty command cannot grow the worker's memory.
 */
export class CappedOutput {
  readonly #max: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #dropped = 0;

  constructor(maxBytes: number) {
    this.#max = maxBytes;
  }

  push(chunk: Buffer): void {
    const room = this.#max - this.#kept;
    if (room <= 0) {
      this.#dropped += chunk.length;
      return;
    }
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.#chunks.push(part);
    this.#kept += part.length;
    this.#dropped += chunk.length - part.length;
  }

  /** Bytes dropped past the cap. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The kept output as UTF-8 text (a character cut by the cap becomes U+FFFD). */
  text(): string {
    return Buffer.concat(this.#chunks).toString("utf8");
  }
}

/** A page of an {@link OutputLog}. */
export interface OutputPage {
  readonly text: string;
  /** Absolute offset (chars since the process started) of the page's first char. */
  readonly from: number;
  /** Offset to read next. */
  readonly next: number;
  /** Chars between the requested offset and `from` that were dropped from the log. */
  readonly skipped: number;
}

/**
 * A background process's output as a log of text with absolute offsets: it keeps the last
 * `maxChars` chars, so a reader pages with `offset` and learns when older output was dropped.
 */
export class OutputLog {
  readonly #max: number;
  readonly #decoder = new StringDecoder("utf8");
  #text = "";
  #start = 0;

  constructor(maxChars: number) {
    this.#max = maxChars;
  }

  append(chunk: Buffer): void {
    this.#add(this.#decoder.write(chunk));
  }

  /** Flushes a character left incomplete at the end of the stream. */
  end(): void {
    this.#add(this.#decoder.end());
  }

  #add(text: string): void {
    if (text === "") return;
    this.#text += text;
    const excess = this.#text.length - this.#max;
    if (excess > 0) {
      this.#text = this.#text.slice(excess);
      this.#start += excess;
    }
  }

  /** Offset just past the last char ever appended. */
  get total(): number {
    return this.#start + this.#text.length;
  }

  /** Up to `maxChars` chars from `offset` (clamped to what is kept). */
  read(offset: number, maxChars: number): OutputPage {
    const from = Math.min(Math.max(offset, this.#start), this.total);
    const text = this.#text.slice(from - this.#start, from - this.#start + maxChars);
    return { text, from, next: from + text.length, skipped: Math.max(0, from - offset) };
  }
}
