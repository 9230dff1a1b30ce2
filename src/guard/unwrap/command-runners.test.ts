/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates */
import { beforeAll, describe, it } from "vitest";
import { createCommandGuard } from "../../platform/index.js";
import type { CommandGuard } from "../command-guard.js";
import { expectAllowed, expectFinding } from "../guard-test-helpers.fixture.js";
import type { CommandRule, GuardVerdictKind } from "../verdict/index.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

describe("programs that run programs are judged by what they run", () => {
  // Each was allowed before, or only asked while hiding a hard command.
  it.each<[string, GuardVerdictKind, CommandRule]>([
    // sed: e, s///e, w, r — in every script spelling
    ["sed '1e reboot' f", "deny", "hard.shutdown"],
    ["sed -e 'p;e rm -rf /' f", "deny", "hard.recursive-delete-system"],
    ["sed --expression='/x/{e reboot\n}' f", "deny", "hard.shutdown"],
    ["sed 'r /etc/shadow' f", "deny", "hard.system-secret-read"],
    ["sed -n 'w /dev/sda' f", "deny", "hard.block-device-write"],
    ["sed 's/x/y/w /dev/sda' f", "deny", "hard.block-device-write"],
    ["sed 'w /etc/cron.d/x' f", "ask", "soft.crontab"],
    ["sed e f", "ask", "soft.wrapped-command"],
    ["sed 's/x/reboot/e' f", "ask", "soft.wrapped-command"],
    ["sed -f script.sed f", "ask", "soft.wrapped-command"],
    ['sed "$S" f', "ask", "soft.wrapped-command"],
    ['sed "s/a/b/$FLAGS" f', "ask", "soft.wrapped-command"],
    // a run-time value is script to sed: `V='/;e reboot;#'` adds a command
    ['sed "s/x/$V/" f', "ask", "soft.wrapped-command"],
    ['sed -i "s/__VERSION__/$VERSION/g" dist/index.js', "ask", "soft.wrapped-command"],
    ['sed "s/x/$(cat f)/" g', "ask", "soft.wrapped-command"],
    ['sed -n "${START},${END}p" file.txt', "ask", "soft.wrapped-command"],
    ['sed -e "/$P/d" f', "ask", "soft.wrapped-command"],
    ['sed "s|x|${V}|e" f', "ask", "soft.wrapped-command"],
    ['sed "1e reboot;s/x/$V/" f', "deny", "hard.shutdown"],
    // the shell tmux, screen, script and `sudo -s` start is $SHELL
    ["SHELL=/usr/sbin/reboot tmux new -d true", "deny", "hard.shutdown"],
    ["env SHELL=/sbin/poweroff sudo -s", "deny", "hard.shutdown"],
    ["export SHELL='rm -rf /'; script -q /dev/null", "deny", "hard.recursive-delete-system"],
    // ed and dc `!`
    ["ed -s f <<< '!reboot'", "deny", "hard.shutdown"],
    ["ed -s f <<'E'\nw /dev/sda\nE", "deny", "hard.block-device-write"],
    ["printf '!reboot\\n' | ed -s f", "ask", "soft.wrapped-command"],
    ["dc -e '!reboot'", "deny", "hard.shutdown"],
    ["dc prog.dc", "ask", "soft.wrapped-command"],
    // database clients
    ["sqlite3 db '.shell reboot'", "deny", "hard.shutdown"],
    ["sqlite3 db '.system rm -rf /'", "deny", "hard.recursive-delete-system"],
    ["sqlite3 -cmd '.once |reboot' db 'select 1'", "deny", "hard.shutdown"],
    ["sqlite3 db < cmds.sql", "ask", "soft.wrapped-command"],
    ["psql -c '\\! reboot'", "deny", "hard.shutdown"],
    ["psql -c \"COPY t FROM PROGRAM 'rm -rf /'\"", "deny", "hard.recursive-delete-system"],
    ["mysql -e 'system reboot'", "deny", "hard.shutdown"],
    ["mariadb --execute='\\! rm -rf /'", "deny", "hard.recursive-delete-system"],
    ["mysql --pager=reboot", "deny", "hard.shutdown"],
    // build tools and package managers
    ["make -f /dev/stdin <<< 'all:; reboot'", "deny", "hard.shutdown"],
    ["make -f /dev/stdin <<'E'\nall:\n\trm -rf /\nE", "deny", "hard.recursive-delete-system"],
    ["make --eval 'x:=$(shell reboot)'", "deny", "hard.shutdown"],
    ["make -f - <<'E'\nall:\n\trm -rf /\nE", "deny", "hard.recursive-delete-system"],
    ["make SHELL=/tmp/x", "ask", "soft.wrapped-command"],
    ["make SHELL=reboot all", "deny", "hard.shutdown"],
    ["npm exec -c 'rm -rf /'", "deny", "hard.recursive-delete-system"],
    ["npx -c 'reboot'", "deny", "hard.shutdown"],
    ["npm exec --call='reboot'", "deny", "hard.shutdown"],
    ["npm run build --script-shell=/tmp/x", "ask", "soft.wrapped-command"],
    ["apt-get -o APT::Update::Pre-Invoke::=reboot update", "deny", "hard.shutdown"],
    ["apt -o 'DPkg::Post-Invoke::=rm -rf /' install x", "deny", "hard.recursive-delete-system"],
    ["apt-get -o Dir::Bin::dpkg=./x install y", "ask", "soft.wrapped-command"],
    // git
    ["git submodule foreach 'rm -rf /'", "deny", "hard.recursive-delete-system"],
    ["git submodule foreach --recursive reboot", "deny", "hard.shutdown"],
    ["git rebase --exec 'reboot' main", "deny", "hard.shutdown"],
    ["git rebase -x 'rm -rf /' main", "deny", "hard.recursive-delete-system"],
    ["git bisect run reboot", "deny", "hard.shutdown"],
    ["git clone --template=./t https://x.example/r", "ask", "soft.wrapped-command"],
    ["git init --template ./t", "ask", "soft.wrapped-command"],
    // parallel, multiplexers, wrappers
    ["parallel ::: reboot", "deny", "hard.shutdown"],
    ["parallel 'rm -rf {}' ::: /", "deny", "hard.recursive-delete-system"],
    ["parallel -j2 rm -rf ::: /", "deny", "hard.recursive-delete-system"],
    ["cat cmds | parallel", "ask", "soft.wrapped-command"],
    ["capsh -- -c reboot", "deny", "hard.shutdown"],
    ["capsh --caps=x -- -c 'rm -rf /'", "deny", "hard.recursive-delete-system"],
    ["tmux new-session reboot", "deny", "hard.shutdown"],
    ["tmux new-session -d -s x 'rm -rf /'", "deny", "hard.recursive-delete-system"],
    ["tmux neww -t x reboot", "deny", "hard.shutdown"],
    ["tmux run-shell reboot", "deny", "hard.shutdown"],
    ["tmux -c 'rm -rf /'", "deny", "hard.recursive-delete-system"],
    ["tmux send-keys -t x 'reboot' Enter", "ask", "soft.wrapped-command"],
    ["screen -dm reboot", "deny", "hard.shutdown"],
    ["screen -S s -dm rm -rf /", "deny", "hard.recursive-delete-system"],
    ["screen -S s -X stuff 'reboot\\n'", "ask", "soft.wrapped-command"],
    ["docker run -v ~/.ssh:/k alpine", "ask", "soft.wrapped-command"],
    ["sudo -s", "ask", "soft.wrapped-command"],
    ["sudo -i", "ask", "soft.wrapped-command"],
    ["su", "ask", "soft.wrapped-command"],
    // debuggers, editors, pagers, expect
    ["lldb -o 'platform shell reboot'", "deny", "hard.shutdown"],
    ["lldb --one-line 'script import os'", "ask", "soft.wrapped-command"],
    ["emacs --eval '(shell-command \"reboot\")'", "deny", "hard.shutdown"],
    ["emacs -batch -eval '(call-process \"reboot\")'", "deny", "hard.shutdown"],
    ["emacs --eval '(message 1)'", "ask", "soft.inline-interpreter"],
    ["less '+!reboot' f", "deny", "hard.shutdown"],
    ["less ++!rm\\ -rf\\ / f", "deny", "hard.recursive-delete-system"],
    ["expect -c 'spawn reboot'", "deny", "hard.shutdown"],
    ["expect -c 'send hi'", "ask", "soft.inline-interpreter"],
    // find: a computed program, its own writes
    ["find . -exec {} \\;", "ask", "soft.wrapped-command"],
    ["find . -name x -execdir {} -rf / +", "ask", "soft.wrapped-command"],
    ["find . -exec env {} \\;", "ask", "soft.wrapped-command"],
    ["find . -exec timeout 1 {} \\;", "ask", "soft.wrapped-command"],
    ["find . -exec nice -n 5 {} +", "ask", "soft.wrapped-command"],
    ["find . -exec rm -rf / \\;", "deny", "hard.recursive-delete-system"],
    ["find . -fprintf /etc/cron.d/x '%p'", "ask", "soft.crontab"],
    ["find . -fprint ~/.bashrc", "ask", "soft.persistence"],
    ["find . -fls /dev/sda", "deny", "hard.block-device-write"],
    // xargs into a wrapper that runs its argument
    ["ls | xargs env rm -rf /", "deny", "hard.recursive-delete-system"],
    ["ls | xargs -I% timeout 1 %", "ask", "soft.wrapped-command"],
    ["ls | xargs -I{} nice -n 5 {}", "ask", "soft.wrapped-command"],
    ["ls | xargs nohup", "ask", "soft.wrapped-command"],
    ["ls | xargs setsid", "ask", "soft.wrapped-command"],
    ["ls | xargs stdbuf -o0", "ask", "soft.wrapped-command"],
    ["ls | xargs env", "ask", "soft.wrapped-command"],
    ["ls | xargs timeout 5", "ask", "soft.wrapped-command"],
    ["ls | xargs sh", "ask", "soft.wrapped-command"],
    ["ls | xargs -i sudo {}", "ask", "soft.wrapped-command"],
    // containers given the host
    ["docker run -v /:/h alpine", "ask", "soft.wrapped-command"],
    ["docker run --rm -v /etc:/e alpine sh", "ask", "soft.wrapped-command"],
    ["podman run --mount type=bind,source=/,target=/h alpine", "ask", "soft.wrapped-command"],
    ["docker run -v /var/run/docker.sock:/s x", "ask", "soft.wrapped-command"],
    ["docker run --privileged alpine", "ask", "soft.wrapped-command"],
  ])("%j → %s (%s)", (command, verdict, rule) => expectFinding(guard, command, verdict, rule));

  it.each([
    "sed -n 1,5p f",
    "sed -i 's/a/b/g' f",
    "sed -e 's/x/y/' -e '/^#/d' f",
    "sed 's/[/]/x/;s|a|b|w out.txt' f",
    "sed -n '/start/,/end/p' f",
    'V=1.2; sed -i "s/__VERSION__/$V/g" dist/index.js',
    "sed '1i hello' f",
    "sed --sandbox 's/x/y/' f",
    "ed -s f <<< $',s/a/b/g\\nw'",
    "sqlite3 db 'select * from t'",
    "sqlite3 db .tables",
    "psql -c 'select 1'",
    "mysql -e 'show tables'",
    "make",
    "make -j4 test",
    "make -f build.mk all",
    "npm run build",
    "npm exec tsc -- --noEmit",
    "npx tsc --noEmit",
    "apt-get -o Debug::pkgProblemResolver=yes install -s x",
    "git submodule update --init",
    "git rebase main",
    "git bisect start",
    "git clone https://github.com/o/r",
    "parallel gzip ::: a b c",
    "tmux new-session -d -s work",
    "tmux ls",
    "less f",
    "less +G f",
    "find . -name '*.ts'",
    "find . -name '*.ts' -exec grep -l foo {} +",
    "find . -fprint out.txt",
    "xargs grep foo",
    "ls | xargs -I{} echo {}",
    "ls | xargs -n1 basename",
    "ls | xargs timeout 5 grep x",
    "docker run --rm -v ./src:/src node:20 npm test",
    "docker ps",
    "screen -ls",
    "screen -dmS work",
    "emacs -nw f",
  ])("leaves %j alone", (command) => expectAllowed(guard, command));
});

describe("program tables are looked up by own keys only", () => {
  // `constructor x` threw before (an Object's inherited `constructor` was read as an option table).
  it.each(["constructor x", "__proto__ x", "toString", "hasOwnProperty a", "valueOf -e x"])(
    "judges %j without throwing",
    (command) => expectAllowed(guard, command),
  );
});

describe("commands a runner reads from a here-document are judged", () => {
  it.each<[string, GuardVerdictKind, CommandRule]>([
    ["psql <<'E'\n\\! reboot\nE", "deny", "hard.shutdown"],
    ["ed f <<'E'\nw !reboot\nE", "deny", "hard.shutdown"],
    ["sqlite3 db <<'E'\n.system rm -rf /\nE", "deny", "hard.recursive-delete-system"],
  ])("%j → %s (%s)", (command, verdict, rule) => expectFinding(guard, command, verdict, rule));

  it("leaves an ordinary ed script alone", () => expectAllowed(guard, "ed f <<'E'\n,s/a/b/\nw\nq\nE"));
});
