import { EventEmitter } from "node:events";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { freePort } from "./free-port.js";

/** A real in-process SMTP server that captures and parses every message it receives. */
export interface SmtpCapture {
  readonly host: string;
  readonly port: number;
  readonly messages: readonly ParsedMail[];
  /** Resolves with the first message (already received or future) that matches, or rejects after timeoutMs. */
  waitForMail(match?: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  /** Makes the server refuse every message with a 451 until set back to false. */
  setRefusing(refusing: boolean): void;
  close(): Promise<void>;
}

/** Starts an SMTP server on 127.0.0.1 (no TLS, any or no auth accepted). */
export async function startSmtpCapture(): Promise<SmtpCapture> {
  const messages: ParsedMail[] = [];
  const events = new EventEmitter();
  let refusing = false;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: true,
    logger: false,
    onAuth(_auth, _session, callback) {
      callback(null, { user: "test" });
    },
    onData(stream, _session, callback) {
      if (refusing) {
        stream.resume();
        stream.on("end", () => callback(Object.assign(new Error("try again later"), { responseCode: 451 })));
        return;
      }
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          events.emit("mail", mail);
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    host: "127.0.0.1",
    port,
    messages,
    waitForMail(match = () => true, timeoutMs = 10_000) {
      const found = messages.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          events.off("mail", onMail);
          reject(new Error(`no matching mail within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        const onMail = (mail: ParsedMail) => {
          if (!match(mail)) return;
          clearTimeout(timer);
          events.off("mail", onMail);
          resolve(mail);
        };
        events.on("mail", onMail);
      });
    },
    setRefusing(value: boolean) {
      refusing = value;
    },
    close() {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
