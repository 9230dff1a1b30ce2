import type { Field } from "../shell/index.js";
import type { Invocation } from "../unwrap/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";

/**
 * Remote code that arrives without a pipe: package runners that fetch and run a package in one go
 * (`npx -y pkg`, `npx pkg@1.2`, `pnpm dlx`, `yarn dlx`, `bunx`, `uvx`, `pipx run`), `deno run` /
 * `deno install` / `bun run` of a URL, and installs from a URL, a git repository or another index
 * (`pip install https://…`, `pip install git+…`, `pip install -i URL`, `npm install <url>`,
 * `cargo install --git`, `go run pkg@version`). A plain `npx tsc` runs the project's own tool and
 * stays allowed.
 */

const REMOTE_SPEC =
  /^(https?:|git\+|git:|ssh:|github:|gitlab:|bitbucket:|gist:|file:|[\w.-]+\/[\w.-]+#|.*\.(tgz|tar\.gz|whl|zip)$)/i;
const URLISH = /^(https?|ftp|git\+\w+|git|ssh|npm|jsr|data):/i;

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

function operands(args: readonly Field[]): Field[] {
  return args.filter((a) => !a.text.startsWith("-"));
}

function remote(inv: Invocation, what: string): GuardFinding[] {
  return [softFinding("soft.remote-script", `${describe(inv)} ${what}`)];
}

/** `npx` / `npm exec`: flagged when it may fetch a package (yes-flags, a version, a URL). */
function packageRunner(inv: Invocation, args: readonly Field[]): GuardFinding[] {
  // npx's own options come before the package; later words are the package's (`npx tsc -p x`).
  const first = args.findIndex((a) => !a.text.startsWith("-"));
  const own = (first < 0 ? args : args.slice(0, first)).map((a) => a.text);
  if (own.some((t) => /^(-y|--yes|-p|--package(=.*)?)$/.test(t) || t.startsWith("--package=")))
    return remote(inv, "fetches a package from the registry and runs it");
  const pkg = args.find((a) => !a.text.startsWith("-"));
  if (pkg && (REMOTE_SPEC.test(pkg.text) || /^@?[^@/\s]+(\/[^@\s]+)?@[^@\s]+$/.test(pkg.text)))
    return remote(inv, `fetches ${pkg.text} and runs it`);
  return [];
}

/** Soft remote-code findings for one invocation. */
export function remoteCodeFindings(inv: Invocation): GuardFinding[] {
  const args = inv.args;
  const first = operands(args)[0]?.text;
  switch (inv.name) {
    case "npx":
      return packageRunner(inv, args);
    case "npm":
      if (first === "exec" || first === "x")
        return packageRunner(inv, args.slice(args.findIndex((a) => a.text === first) + 1));
      if (
        first &&
        /^(install|i|add|ci)$/.test(first) &&
        operands(args)
          .slice(1)
          .some((o) => REMOTE_SPEC.test(o.text))
      )
        return remote(inv, "installs a package from a URL or a repository, running its install scripts");
      return [];
    case "pnpm":
    case "yarn":
      return first === "dlx" ? remote(inv, "dlx fetches a package and runs it") : [];
    case "bunx":
    case "uvx":
      return operands(args).length > 0 ? remote(inv, "fetches a package and runs it") : [];
    case "bun":
      if (first === "x") return remote(inv, "x fetches a package and runs it");
      return operands(args).some((o) => URLISH.test(o.text)) ? remote(inv, "runs code from a URL") : [];
    case "pipx":
      return first === "run" ? remote(inv, "run fetches a package and runs it") : [];
    case "deno":
      return operands(args).some((o) => URLISH.test(o.text)) ? remote(inv, "runs code from a URL") : [];
    case "pip":
    case "pip3":
    case "uv": {
      const ops = operands(args);
      const install = ops.findIndex((o) => o.text === "install");
      if (install < 0) return [];
      const texts = args.map((a) => a.text);
      if (
        ops.slice(install + 1).some((o) => REMOTE_SPEC.test(o.text)) ||
        texts.some(
          (t, i) =>
            /^(-i|--index-url|--extra-index-url|-f|--find-links)$/.test(t) && URLISH.test(texts[i + 1] ?? ""),
        ) ||
        texts.some((t) => /^--(index-url|extra-index-url|find-links)=/.test(t))
      )
        return remote(
          inv,
          "installs a package from a URL, a repository or another index, running its build code",
        );
      return [];
    }
    case "cargo":
      return first === "install" && args.some((a) => /^--git(=|$)/.test(a.text))
        ? remote(inv, "install --git builds and installs code from a repository")
        : [];
    case "go":
      return (first === "run" || first === "install") &&
        operands(args).some((o) => /@[\w.-]+$/.test(o.text) && !o.text.startsWith("./"))
        ? remote(inv, `${first} fetches a module and runs or installs it`)
        : [];
    default:
      // `python3 -m pip install URL`.
      if (/^python[\d.]*$/.test(inv.name) && args[0]?.text === "-m" && args[1]?.text === "pip")
        return remoteCodeFindings({ ...inv, name: "pip", args: args.slice(2) });
      return [];
  }
}
