import type { Node } from "web-tree-sitter";
import { foldForMatching } from "./text-normalise.js";

/**
 * One shell word after bash's expansions as far as they can be known statically: quote removal,
 * escapes, ANSI-C strings, brace expansion, `$IFS` word splitting and variables assigned earlier
 * in the same script. What cannot be known (`$X`, `$(...)`) stays in the text as written
 * (`$HOME`, `$(curl x)`) and marks the field dynamic.
 */
export interface Field {
  /** The field with unknown expansions kept as written; folded for matching. */
  text: string;
  /** The field with unknown expansions removed (what it is when they expand to nothing). */
  bare: string;
  /** True when the field holds an expansion whose value is not known. */
  dynamic: boolean;
  /** True when the field holds an unquoted glob character (`*`, `?`, `[`). */
  glob: boolean;
  /**
   * For a dynamic field: the text with each unknown part replaced by `*` (`/etc/sha${u}dow` →
   * `/etc/sha*dow`), what the field could be; see unknown-parts.
   */
  pattern?: string;
}

/** What word expansion needs from its surroundings. */
export interface WordContext {
  /** Variables assigned a literal value earlier in the script. */
  vars: Map<string, string>;
  /** Set when an expansion was too large to follow (the command then needs approval). */
  tooComplex: boolean;
  /**
   * Set when the parser left a lone `$` inside a word (tree-sitter-bash splits `a$X-b$Y/c` wrongly);
   * the guard then re-reads the text with `${X}` spelling.
   */
  strayDollar: boolean;
  /**
   * Set once the script assigns IFS: from there on, how an unquoted expansion splits is unknown,
   * so every unquoted expansion is an unknown part (`IFS=,; x=rm,-rf,/; $x` runs `rm -rf /`).
   */
  ifsChanged?: boolean;
}

// Quoted ASCII characters are shifted into a private-use block so that brace expansion, splitting
// and glob detection see only the unquoted ones; everything is shifted back at the end.
const ESC_BASE = 0xe000;
const SPLIT = "\ue100";
const DYN_OPEN = "\ue101";
const DYN_CLOSE = "\ue102";
const MAX_FIELDS = 256;
/** Stands for an unquoted `{` the parser must not read as a group opener (see the command guard). */
export const BRACE_MARK = "\ue200";

function esc(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    out += code < 128 ? String.fromCharCode(ESC_BASE + code) : text[i];
  }
  return out;
}

function unesc(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    out += code >= ESC_BASE && code < ESC_BASE + 128 ? String.fromCharCode(code - ESC_BASE) : text[i];
  }
  return out;
}

function dyn(text: string): string {
  return DYN_OPEN + esc(text) + DYN_CLOSE;
}

function unquotedWord(raw: string): string {
  const text = raw.includes(BRACE_MARK) ? raw.replaceAll(BRACE_MARK, "{") : raw;
  if (!text.includes("\\")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\" && i + 1 < text.length) {
      const next = text[i + 1] as string;
      i++;
      if (next !== "\n") out += esc(next);
    } else {
      out += ch;
    }
  }
  return out;
}

function doubleQuoted(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    const next = text[i + 1];
    if (ch === "\\" && next !== undefined && '$`"\\\n'.includes(next)) {
      i++;
      if (next !== "\n") out += esc(next);
    } else {
      out += esc(ch);
    }
  }
  return out;
}

const ANSI_SIMPLE: Record<string, string> = {
  a: "\u0007",
  b: "\b",
  e: "\u001b",
  E: "\u001b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decodes the inside of `$'...'` the way bash does. */
export function decodeAnsiC(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch !== "\\" || i + 1 >= body.length) {
      out += ch;
      continue;
    }
    const next = body[++i] as string;
    const simple = ANSI_SIMPLE[next];
    if (simple !== undefined) {
      out += simple;
    } else if (next === "x" || next === "u" || next === "U") {
      const max = next === "x" ? 2 : next === "u" ? 4 : 8;
      const hex = /^[0-9a-fA-F]+/.exec(body.slice(i + 1, i + 1 + max))?.[0] ?? "";
      if (hex === "") out += `\\${next}`;
      else out += String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff));
      i += hex.length;
    } else if (next >= "0" && next <= "7") {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i))?.[0] ?? next;
      out += String.fromCharCode(Number.parseInt(oct, 8) & 0xff);
      i += oct.length - 1;
    } else if (next === "c" && i + 1 < body.length) {
      out += String.fromCharCode((body.charCodeAt(++i) & 0x1f) >>> 0);
    } else {
      out += `\\${next}`;
    }
  }
  return out;
}

function variableName(node: Node): string | undefined {
  const kids = node.children;
  for (let i = 0; i < kids.length; i++) {
    const child = kids[i];
    if (child && (child.type === "variable_name" || child.type === "special_variable_name"))
      return child.text;
  }
  return undefined;
}

function expansion(node: Node, quoted: boolean, ctx: WordContext): string {
  const name = variableName(node);
  if (!quoted && ctx.ifsChanged) return dyn(node.text);
  if (name === "IFS") return quoted ? esc(" ") : SPLIT;
  const simple = node.type === "simple_expansion" || node.childCount === 3;
  if (name !== undefined && simple) {
    const value = ctx.vars.get(name);
    if (value !== undefined) {
      // Unquoted, a variable's value is split on whitespace and globbed, but not brace-expanded.
      if (quoted) return esc(value);
      return value.replace(/[{},\\]/g, (c) => esc(c)).replace(/[ \t\n]+/g, SPLIT);
    }
    return dyn(`$${name}`);
  }
  return dyn(node.text);
}

function encode(node: Node, quoted: boolean, ctx: WordContext): string {
  switch (node.type) {
    case "word":
      return quoted ? esc(node.text) : unquotedWord(node.text);
    case "number":
    case "brace_expression":
      return quoted ? esc(node.text) : node.text;
    case "raw_string":
      return esc(node.text.slice(1, -1));
    case "ansi_c_string":
      return esc(decodeAnsiC(node.text.slice(2, -1)));
    case "string":
      return encodeString(node, ctx);
    case "translated_string": {
      const inner = node.namedChild(0);
      return inner ? encode(inner, true, ctx) : "";
    }
    case "concatenation": {
      let out = "";
      const kids = node.children;
      for (let i = 0; i < kids.length; i++) {
        const child = kids[i];
        if (child) out += encode(child, quoted, ctx);
      }
      return out;
    }
    case "simple_expansion":
    case "expansion":
      return expansion(node, quoted, ctx);
    case "$":
      ctx.strayDollar = true;
      return dyn("$");
    default:
      return dyn(node.text);
  }
}

function encodeString(node: Node, ctx: WordContext): string {
  // Text between the child nodes (tree-sitter does not always make a node of it) is string content.
  const start = node.startIndex + 1;
  const end = node.endIndex - 1;
  const whole = node.text;
  let out = "";
  let pos = start;
  const kids = node.children;
  for (let i = 0; i < kids.length; i++) {
    const child = kids[i];
    if (!child || child.type === '"') continue;
    if (child.startIndex > pos)
      out += doubleQuoted(whole.slice(pos - node.startIndex, child.startIndex - node.startIndex));
    out += child.type === "string_content" ? doubleQuoted(child.text) : encode(child, true, ctx);
    pos = child.endIndex;
  }
  if (end > pos) out += doubleQuoted(whole.slice(pos - node.startIndex, end - node.startIndex));
  return out;
}

const RANGE = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/;

function rangeItems(body: string): string[] | undefined {
  const m = RANGE.exec(body);
  if (!m) return undefined;
  const [, from = "", to = "", stepText] = m;
  const numeric = /\d/.test(from) && /\d/.test(to);
  if (!numeric && (/\d/.test(from) || /\d/.test(to))) return undefined;
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(stepText ?? 1)) || 1);
  const items: string[] = [];
  for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step) {
    items.push(numeric ? String(v) : String.fromCharCode(v));
    if (items.length > MAX_FIELDS) break;
  }
  return items;
}

function braceExpand(text: string, out: string[], ctx: WordContext): void {
  if (out.length > MAX_FIELDS) {
    ctx.tooComplex = true;
    return;
  }
  for (let open = text.indexOf("{"); open !== -1; open = text.indexOf("{", open + 1)) {
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = open + 1; j < text.length; j++) {
      const ch = text[j];
      if (ch === "{") depth++;
      else if (ch === "}") {
        if (depth === 0) {
          close = j;
          break;
        }
        depth--;
      } else if (ch === "," && depth === 0) commas.push(j);
    }
    if (close === -1) return void out.push(text);
    const body = text.slice(open + 1, close);
    let items: string[] | undefined;
    if (commas.length > 0) {
      items = [];
      let from = open + 1;
      for (const comma of [...commas, close]) {
        items.push(text.slice(from, comma));
        from = comma + 1;
      }
    } else {
      items = rangeItems(body);
    }
    if (items === undefined) continue;
    const prefix = text.slice(0, open);
    const suffix = text.slice(close + 1);
    for (const item of items) braceExpand(prefix + item + suffix, out, ctx);
    return;
  }
  out.push(text);
}

const GLOB_CHARS = /[*?[]/;

function toField(encoded: string): Field {
  let text = "";
  let bare = "";
  let dynamic = false;
  let glob = false;
  let inDyn = false;
  let plain = "";
  let pattern = "";
  for (const ch of encoded) {
    if (ch === DYN_OPEN) {
      inDyn = true;
      dynamic = true;
      if (!pattern.endsWith("*")) pattern += "*";
    } else if (ch === DYN_CLOSE) {
      inDyn = false;
    } else {
      text += ch;
      if (!inDyn) {
        bare += ch;
        plain += ch;
        pattern += ch;
      }
    }
  }
  glob = GLOB_CHARS.test(plain);
  const field: Field = {
    text: foldForMatching(unesc(text)),
    bare: foldForMatching(unesc(bare)),
    dynamic,
    glob,
  };
  if (dynamic) field.pattern = foldForMatching(unesc(pattern));
  return field;
}

/**
 * Expands one word node into the fields bash would pass to the command (several after brace
 * expansion or `$IFS` splitting, none for an unquoted empty expansion).
 */
export function expandWord(node: Node, ctx: WordContext): Field[] {
  const encoded = encode(node, false, ctx);
  const expanded: string[] = [];
  if (encoded.includes("{")) braceExpand(encoded, expanded, ctx);
  else expanded.push(encoded);
  const fields: Field[] = [];
  for (const item of expanded) {
    const parts = item.includes(SPLIT) ? item.split(SPLIT) : [item];
    for (const part of parts) if (part !== "") fields.push(toField(part));
  }
  return fields;
}

/** A field for a literal string (argv given as JSON, or a re-parsed script's known text). */
export function literalField(text: string): Field {
  const folded = foldForMatching(text);
  return { text: folded, bare: folded, dynamic: false, glob: false };
}
