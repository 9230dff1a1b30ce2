/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates */
import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import type { CommandGuard } from "./command-guard.js";
import { commandRunFiles } from "./command-run-files.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

const files = (command: string) => commandRunFiles(guard.analyse(command)).map((f) => f.path);

describe("commandRunFiles: the workspace files a command runs", () => {
  it.each([
    ["sh x.sh", ["x.sh"]],
    ["bash -e scripts/deploy.sh arg", ["scripts/deploy.sh"]],
    ["bash --rcfile rc.sh run.sh", ["run.sh"]],
    ["bash -c 'echo hi'", []],
    ["bash -xc ./y.sh", ["y.sh"]],
    ["./x", ["x"]],
    ["tools/run --fast", ["tools/run"]],
    [". ./env.sh && make", ["GNUmakefile", "Makefile", "env.sh", "makefile"]],
    ["source env.sh", ["env.sh"]],
    ["python3 x.py --flag", ["x.py"]],
    ["python3 -W ignore -u x.py", ["x.py"]],
    ["python3 -c 'print(1)'", []],
    ["python3 -m http.server", []],
    ["node x.js", ["x.js"]],
    ["node -r ./hook.js app.js", ["app.js"]],
    ["node -e 'process.exit(0)'", []],
    ["deno run main.ts", ["main.ts"]],
    ["perl -I lib x.pl", ["x.pl"]],
    ["make", ["GNUmakefile", "Makefile", "makefile"]],
    ["make -f build.mk all", ["build.mk"]],
    ["make -C sub test", ["sub/GNUmakefile", "sub/Makefile", "sub/makefile"]],
    ["npm run build", ["package.json"]],
    ["npm test", ["package.json"]],
    ["npm --prefix app run lint", ["app/package.json"]],
    ["npm install left-pad", []],
    ["yarn build", ["package.json"]],
    ["cd sub && sh x.sh", ["sub/x.sh"]],
    ["timeout 5 env A=1 sh x.sh", ["x.sh"]],
    ["echo $(sh inner.sh)", ["inner.sh"]],
    ["sh $SCRIPT", []],
    ["sh *.sh", []],
    ["ls -la && git status", []],
  ])("%s runs %j", (command, expected) => {
    expect(files(command)).toEqual(expected);
  });
});
