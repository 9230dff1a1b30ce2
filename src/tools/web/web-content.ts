import { convert, type HtmlToTextOptions } from "html-to-text";

/** How web_fetch renders a body: readable text (HTML converted) or the decoded body as is. */
export const WEB_FETCH_FORMATS = ["text", "raw"] as const;
export type WebFetchFormat = (typeof WEB_FETCH_FORMATS)[number];

/** A body rendered for the model, or why it cannot be. */
export type RenderedBody =
  | { readonly ok: true; readonly text: string; readonly mediaType: string }
  | { readonly ok: false; readonly reason: string; readonly mediaType: string };

const TEXTUAL = [
  /^text\//,
  /^application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-ndjson|rss\+xml|atom\+xml)$/,
  /^application\/[\w.-]+\+(json|xml)$/,
];

// Links keep their target (the model may want to follow them); pictures, embedded documents and
// markup the reader never sees are dropped.
const HTML_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
    { selector: "img", format: "skip" },
    { selector: "svg", format: "skip" },
    { selector: "noscript", format: "skip" },
    { selector: "template", format: "skip" },
    { selector: "iframe", format: "skip" },
    { selector: "h1", options: { uppercase: false } },
    { selector: "h2", options: { uppercase: false } },
    { selector: "h3", options: { uppercase: false } },
    { selector: "h4", options: { uppercase: false } },
    { selector: "h5", options: { uppercase: false } },
    { selector: "h6", options: { uppercase: false } },
    { selector: "table", options: { uppercaseHeaderCells: false } },
  ],
};

/**
 * Decodes a body by its charset and renders it: HTML becomes readable text (html-to-text), other
 * textual types are returned decoded; binary types are refused with their media type.
 */
export function renderBody(
  body: Buffer,
  contentType: string | undefined,
  format: WebFetchFormat,
): RenderedBody {
  const { mediaType, charset } = parseContentType(contentType);
  const textual = mediaType === "" ? looksLikeText(body) : TEXTUAL.some((re) => re.test(mediaType));
  if (!textual) {
    return {
      ok: false,
      mediaType,
      reason: `the response is ${mediaType || "binary data"}, which web_fetch does not render (text, HTML, JSON and XML only)`,
    };
  }
  const isHtml = mediaType === "text/html" || mediaType === "application/xhtml+xml";
  const text = decode(body, charset ?? (isHtml ? sniffHtmlCharset(body) : undefined));
  if (format === "raw" || !isHtml) return { ok: true, text, mediaType: mediaType || "text/plain" };
  return { ok: true, text: tidy(convert(text, HTML_OPTIONS)), mediaType };
}

/** The media type (lower case, no parameters) and charset of a Content-Type header. */
export function parseContentType(header: string | undefined): { mediaType: string; charset?: string } {
  if (!header) return { mediaType: "" };
  const [type = "", ...params] = header.split(";");
  const mediaType = type.trim().toLowerCase();
  for (const param of params) {
    const [key, value] = param.split("=");
    if (key?.trim().toLowerCase() === "charset" && value) {
      return { mediaType, charset: value.trim().replace(/^"|"$/g, "") };
    }
  }
  return { mediaType };
}

function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    // An unknown label is the server's mistake; UTF-8 is the web's default.
    return new TextDecoder("utf-8").decode(body);
  }
}

function sniffHtmlCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 2048).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1];
}

function looksLikeText(body: Buffer): boolean {
  return !body.subarray(0, 1024).includes(0);
}

function tidy(text: string): string {
  return text.replace(/\n{3,}/g, "\n\n").trim();
}
