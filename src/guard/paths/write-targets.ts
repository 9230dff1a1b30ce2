import { posix } from "node:path";
import { type Field, literalField } from "../shell/index.js";
import type { Invocation } from "../unwrap/index.js";
import { optionSpec, optionValuesOf, type ReadArgs, readOptions } from "../unwrap/index.js";

/**
 * The files an invocation writes, read with the programs' option tables: `tee FILE`, `cp SRC DEST`
 * (and `DEST/SRC` when DEST is a directory), `install -t DIR`, `dd of=`, `sed -i`, `curl -o` /
 * `--output` / `-O` (the URL's file name), `wget -O` / default name, `sort -o`, `uniq IN OUT`, awk
 * `print > "file"`, `truncate`, `ln`. Redirections are the shell's and are read by the families
 * directly.
 */

const EMPTY: ReadArgs = { options: [], operands: [] };

function read(inv: Invocation): ReadArgs {
  const spec = optionSpec(inv.name);
  if (spec) return readOptions(inv.args, spec);
  return {
    options: [],
    operands: inv.args.filter((a) => !a.text.startsWith("-") || a.text === "-"),
  };
}

function withBase(dir: Field, source: Field): Field {
  const base = posix.basename(source.text.replace(/\/+$/, ""));
  return { ...dir, text: `${dir.text.replace(/\/+$/, "")}/${base}`, dynamic: dir.dynamic || source.dynamic };
}

/** The file name curl -O / wget give a download: the last path segment of the URL. */
export function urlFileName(url: Field): Field | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)?/i.exec(url.text);
  if (!m) return undefined;
  const base = posix.basename(m[1] ?? "/");
  return base === "" || base === "/" ? undefined : { ...url, text: base };
}

function copyTargets(inv: Invocation, r: ReadArgs): Field[] {
  const targetDir = optionValuesOf(r, "--target-directory");
  const ops = r.operands;
  if (targetDir.length > 0) return targetDir.flatMap((d) => [d, ...ops.map((s) => withBase(d, s))]);
  if (ops.length < 2 && inv.name !== "ln") return [];
  const dest = ops[ops.length - 1] as Field | undefined;
  if (!dest) return [];
  // DEST may be a directory: then each source lands inside it under its own name.
  return [dest, ...ops.slice(0, -1).map((s) => withBase(dest, s))];
}

function awkTargets(inv: Invocation): Field[] {
  const out: Field[] = [];
  for (const a of inv.args) {
    for (const m of a.text.matchAll(/\b(?:print|printf)\b[^;}]*?>>?\s*("((?:\\.|[^"\\])*)"|[A-Za-z_]\w*)/g)) {
      out.push(m[2] !== undefined ? { ...a, text: m[2] } : { ...a, text: `$${m[1]}`, dynamic: true });
    }
  }
  return out;
}

function curlTargets(r: ReadArgs): Field[] {
  const dir = optionValuesOf(r, "--output-dir")[0];
  const join = (f: Field) => (dir && !f.text.startsWith("/") ? withBase(dir, f) : f);
  const out = optionValuesOf(
    r,
    "--output",
    "--dump-header",
    "--cookie-jar",
    "--etag-save",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--libcurl",
    "--hsts",
    "--alt-svc",
  ).map(join);
  if (r.options.some((o) => o.name === "--remote-name" || o.name === "--remote-name-all")) {
    for (const u of r.operands) {
      const name = urlFileName(u);
      if (name) out.push(join(name));
    }
  }
  return out;
}

function wgetTargets(r: ReadArgs): Field[] {
  const out = optionValuesOf(
    r,
    "--output-document",
    "--output-file",
    "--append-output",
    "--save-cookies",
    "--rejected-log",
    "--hsts-file",
    "--warc-file",
  );
  // `wget -e output_document=FILE`: wgetrc commands given on the command line.
  for (const e of optionValuesOf(r, "--execute")) {
    const m = /^\s*(output_?document|logfile|append_?output)\s*=\s*(.*)$/i.exec(e.text);
    if (m) out.push({ ...e, text: m[2] as string });
  }
  if (optionValuesOf(r, "--output-document").length > 0) return out;
  const prefix = optionValuesOf(r, "--directory-prefix")[0];
  for (const u of r.operands) {
    const name = urlFileName(u);
    if (name) out.push(prefix ? withBase(prefix, name) : name);
  }
  return out;
}

const MEMO = new WeakMap<Invocation, Field[]>();

/** Every file `inv` writes, as written (relative paths are resolved by the caller). */
export function writeTargets(inv: Invocation): Field[] {
  // Several families ask for the same invocation's targets; they are read once.
  let found = MEMO.get(inv);
  if (found === undefined) {
    found = computeWriteTargets(inv);
    MEMO.set(inv, found);
  }
  return found;
}

function computeWriteTargets(inv: Invocation): Field[] {
  switch (inv.name) {
    case "tee":
      return read(inv).operands;
    case "cp":
    case "mv":
    case "install":
    case "ln":
    case "rsync":
    case "scp":
      return copyTargets(
        inv,
        inv.name === "rsync" || inv.name === "scp" ? { ...EMPTY, operands: read(inv).operands } : read(inv),
      );
    case "dd":
      return inv.args.filter((a) => a.text.startsWith("of=")).map((a) => ({ ...a, text: a.text.slice(3) }));
    case "sed":
    case "gsed": {
      const r = read(inv);
      if (!r.options.some((o) => o.name === "--in-place" || o.name === "-i")) return [];
      const scripted = optionValuesOf(r, "--expression", "--file").length > 0;
      return r.operands.slice(scripted ? 0 : 1);
    }
    case "perl":
      return inv.args.some((a) => /^-[a-zA-Z]*i/.test(a.text))
        ? inv.args.filter(
            (a, i) => !a.text.startsWith("-") && !/^-[a-zA-Z]*e$/.test(inv.args[i - 1]?.text ?? ""),
          )
        : [];
    case "curl":
      return curlTargets(read(inv));
    case "wget":
      return wgetTargets(read(inv));
    case "sort":
      return optionValuesOf(read(inv), "--output");
    case "shuf":
      return inv.args.filter((a, i) => inv.args[i - 1]?.text === "-o" || a.text.startsWith("--output="));
    case "uniq": {
      const ops = read(inv).operands;
      return ops.length >= 2 ? [ops[1] as Field] : [];
    }
    case "truncate":
      return read(inv).operands;
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk":
      return awkTargets(inv);
    case "cc":
    case "gcc":
    case "g++":
    case "c++":
    case "clang":
    case "clang++":
    case "tcc":
    case "ld":
    case "rustc":
      // `gcc -o app main.c`, `-oapp`: the file the compiler or linker writes.
      return inv.args.flatMap((a, i) =>
        a.text === "-o" && inv.args[i + 1]
          ? [inv.args[i + 1] as Field]
          : /^-o./.test(a.text)
            ? [{ ...a, text: a.text.slice(2) }]
            : [],
      );
    case "go":
      return inv.args[0]?.text === "build"
        ? inv.args.flatMap((a, i) => (a.text === "-o" && inv.args[i + 1] ? [inv.args[i + 1] as Field] : []))
        : [];
    case "tar":
    case "bsdtar":
    case "unzip":
    case "7z":
    case "7za":
    case "cpio":
      return extractionTargets(inv);
    default:
      return [];
  }
}

/**
 * An archive extracted into a directory writes files of any name there: `DIR/*` (a glob, so a
 * family matches when some member could be its file: `tar -xf h.tar -C .git/hooks`). Members deeper
 * than that land anywhere below: {@link extractionLanding} says where, for the families that look.
 */
function extractionTargets(inv: Invocation): Field[] {
  const landing = extractionLanding(inv);
  if (landing === undefined) return [];
  return landing.directories.map((d) => ({ ...d, text: `${d.text.replace(/\/+$/, "")}/*`, glob: true }));
}

/**
 * Where an archive extraction's members land: below each directory, at any depth (`a/b/.git/hooks/x`,
 * or `.git/hooks/x` after `--strip-components`), and anywhere at all when the program keeps absolute
 * and `..` names (`tar -P` / `--absolute-names`, `unzip -:`, and `cpio -i` unless
 * `--no-absolute-filenames`). Undefined when the invocation extracts nothing.
 */
export function extractionLanding(
  inv: Invocation,
): { directories: Field[]; absoluteNames: boolean } | undefined {
  if (!ARCHIVE_PROGRAMS.has(inv.name)) return undefined;
  const args = inv.args;
  const texts = args.map((a) => a.text);
  let extracting: boolean;
  let absoluteNames = false;
  let dirs: Field[] = [];
  const optionValueAt = (i: number, short: string): Field | undefined => {
    const t = texts[i] as string;
    return t === short ? args[i + 1] : { ...(args[i] as Field), text: t.slice(short.length) };
  };
  switch (inv.name) {
    case "unzip":
      extracting = !texts.some((t) => /^-[A-Za-z]*[lptvzZ]/.test(t));
      absoluteNames = texts.some((t) => /^-[A-Za-z]*:/.test(t));
      texts.forEach((t, i) => {
        const d = /^-d/.test(t) ? optionValueAt(i, "-d") : undefined;
        if (d) dirs.push(d);
      });
      break;
    case "7z":
    case "7za":
      extracting = /^[xe]$/.test(texts[0] ?? "");
      dirs = args.filter((a) => a.text.startsWith("-o")).map((a) => ({ ...a, text: a.text.slice(2) }));
      break;
    case "cpio":
      extracting = texts.some((t) => /^-[A-Za-z]*i|^--extract$/.test(t));
      absoluteNames = !texts.includes("--no-absolute-filenames");
      texts.forEach((t, i) => {
        const d = t === "-D" || /^-D./.test(t) ? optionValueAt(i, "-D") : undefined;
        if (d) dirs.push(d);
        if (t.startsWith("--directory=")) dirs.push({ ...(args[i] as Field), text: t.slice(12) });
      });
      break;
    default: {
      // tar: `-x`, a cluster with x, `--extract` / `--get`, or the dashless bundle (`tar xzf`).
      const first = texts[0] ?? "";
      const bundle = /^[A-Za-z]+$/.test(first) ? first : "";
      extracting =
        texts.some((t) => /^-[A-Za-z]*x/.test(t) || /^--(extract|get)$/.test(t)) || bundle.includes("x");
      absoluteNames = bundle.includes("P") || texts.some((t) => /^-[A-Za-z]*P/.test(t) || /^--abs/.test(t));
      texts.forEach((t, i) => {
        const d = t === "-C" || /^-C./.test(t) ? optionValueAt(i, "-C") : undefined;
        if (d) dirs.push(d);
        if (t.startsWith("--directory=")) dirs.push({ ...(args[i] as Field), text: t.slice(12) });
        else if (t === "--directory" && args[i + 1]) dirs.push(args[i + 1] as Field);
      });
    }
  }
  if (!extracting) return undefined;
  if (dirs.length === 0) dirs = [literalField(".")];
  return { directories: dirs, absoluteNames };
}

const ARCHIVE_PROGRAMS: ReadonlySet<string> = new Set(["tar", "bsdtar", "unzip", "7z", "7za", "cpio"]);
