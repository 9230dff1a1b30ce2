import nodemailer from "nodemailer";
import { type EchoRunnerConfig, optionalSecret } from "../../../config/index.js";
import type { DeepReadonly } from "../../../shared/index.js";
import { type DoctorCheck, fail, ok, warn } from "./doctor-check.js";

/**
 * The SMTP server approval mails go through: with `smtp.host` set, a real connection, EHLO (and the
 * login when `smtp.user` is set) through nodemailer's verify — the same transport settings the
 * email notifier uses. Without it, mails are written to the log, which is fine for one machine.
 */
export async function checkSmtp(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<DoctorCheck> {
  const smtp = config.smtp;
  if (!smtp.host) {
    const mailed = config.approvers.filter((a) => a.email);
    if (mailed.length > 0) {
      return warn(
        "smtp",
        `not configured: mails go to the log, so approvers with an email address (${mailed.map((a) => a.id).join(", ")}) receive nothing`,
        "set smtp.host, smtp.port, smtp.user and the password variable named by smtp.password_env",
      );
    }
    return ok("smtp", "not configured: mails go to the log");
  }
  const where = `${smtp.host}:${smtp.port}`;
  const password = smtp.user ? optionalSecret(smtp.password_env, env) : undefined;
  if (smtp.user && password === undefined) {
    return fail(
      "smtp",
      `smtp.user is "${smtp.user}" but the password variable ${smtp.password_env} (smtp.password_env) is not set`,
      `export ${smtp.password_env}=… in the runner's environment, or set smtp.user to "" for a server without login`,
    );
  }
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user ? { user: smtp.user, pass: password ?? "" } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  try {
    await transport.verify();
    return ok("smtp", `${where} answered EHLO${smtp.user ? ` and accepted the login of ${smtp.user}` : ""}`);
  } catch (err) {
    return fail(
      "smtp",
      `cannot use the SMTP server ${where}: ${(err as Error).message}`,
      "check smtp.host and smtp.port (and smtp.secure: true only for implicit TLS on 465), that the server is up and reachable from here, and the login",
    );
  } finally {
    transport.close();
  }
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "[::]"]);

function isLocalHost(hostname: string): boolean {
  return LOCAL_HOSTS.has(hostname) || hostname.endsWith(".localhost") || /^127\./.test(hostname);
}

/**
 * `http.public_url`, the base of every approval link: with mail going out it must be an address
 * the approvers can open, not this machine's loopback.
 */
export function checkPublicUrl(config: DeepReadonly<EchoRunnerConfig>): DoctorCheck {
  const raw = config.http.public_url;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(
      "http.public_url",
      `"${raw}" is not a URL`,
      "set http.public_url to the address approvers open, e.g. https://runner.example.com",
    );
  }
  const local = isLocalHost(url.hostname);
  if (config.smtp.host && local) {
    return fail(
      "http.public_url",
      `approval links point at ${url.origin}, this machine's loopback: approvers who get the mail elsewhere cannot open them`,
      "set http.public_url to the address approvers reach (the proxy's https URL in front of http.host:http.port)",
    );
  }
  if (local)
    return ok("http.public_url", `${url.origin} (links are printed on this machine, so loopback is fine)`);
  if (url.protocol !== "https:") {
    return warn(
      "http.public_url",
      `approval links use ${url.origin} over plain http: each link carries a token that anyone on the path can read`,
      "serve the runner behind a TLS proxy and set http.public_url to its https URL",
    );
  }
  return ok("http.public_url", url.origin);
}
