import { RunnerError } from "../shared/index.js";

/**
 * `http.public_url` with the port the HTTP server really bound: when the URL names port 0 (it
 * followed `http.port: 0`, or the operator wrote it so), the bound port takes its place, so approval
 * links point at the server. Any other URL is returned as it is. `address` is the server's listen
 * address (`http://127.0.0.1:41235`).
 */
export function boundPublicUrl(publicUrl: string, address: string | undefined): string {
  const url = new URL(publicUrl);
  if (url.port !== "0") return publicUrl;
  const bound = address === undefined ? "" : new URL(address).port;
  if (bound === "" || bound === "0") {
    throw new RunnerError(
      "CONFIG_INVALID",
      `http.public_url ${publicUrl} names port 0, which only the HTTP server of this process can resolve; run the worker with the server (start) or set http.public_url to the address approvers open`,
      { data: { key: "http.public_url" } },
    );
  }
  url.port = bound;
  // URL keeps a trailing "/" on a bare origin; the configured form had none.
  return publicUrl.endsWith("/") ? url.toString() : url.toString().replace(/\/$/, "");
}
