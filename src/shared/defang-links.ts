/**
 * Text with its links defanged (`https[:]//…`, `www[.]`, `mailto[:]`): still readable, but no mail
 * client or chat turns it into something to click. For text an agent wrote that the runner passes
 * on to people (mails, chat, digests).
 */
export function defangLinks(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*):\/\//gi, "$1[:]//")
    .replace(/\b(www)\./gi, "$1[.]")
    .replace(/\bmailto:/gi, "mailto[:]");
}
