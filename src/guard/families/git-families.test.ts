import { beforeAll, describe, it } from "vitest";
import { createCommandGuard } from "../../platform/index.js";
import type { CommandGuard } from "../command-guard.js";
import { expectAllowed, expectFinding } from "../guard-test-helpers.fixture.js";
import type { CommandRule } from "../verdict/index.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

describe("git history destruction", () => {
  it.each([
    ["git reset --hard"],
    ["git reset --hard HEAD~3"],
    ["git reset --har"],
    ["git reset --hard origin/main"],
    ["sudo git reset --hard"],
    ["/usr/bin/git -C repo reset --hard"],
    ["git push --force"],
    ["git push -f origin main"],
    ["git push -fu origin main"],
    ["git push --forc origin main"],
    ["git push --force-with-lease"],
    ["git push origin main --force"],
    ["git push origin +main"],
    ["git push origin +HEAD:main"],
    ["git push origin :main"],
    ["git push --delete origin x"],
    ["git push --mirror"],
    ["git clean -f"],
    ["git clean -fdx"],
    ["git clean -xdf"],
    ["git clean --force"],
    ["git branch -D x"],
    ["git branch -d -f x"],
    ["git branch --delete --force x"],
    ["git filter-branch --tree-filter x HEAD"],
    ["git filter-repo --path x"],
    ["git reflog expire --expire=now --all"],
    ["git reflog delete HEAD@{1}"],
    ["git stash clear"],
    ["git checkout -f main"],
    ["timeout 60 git push -f"],
  ])("asks for %j", (command) => expectFinding(guard, command, "ask", "soft.git-history"));

  it.each([
    ["git push origin main"],
    ["git push -u origin feature"],
    ["git reset HEAD file"],
    ["git reset --soft HEAD~1"],
    ["git clean -n"],
    ["git clean -fn"],
    ["git branch -d merged"],
    ["git checkout main"],
    ["git stash pop"],
    ["git reflog"],
    ["git log --force"],
  ])("leaves %j alone", (command) => expectAllowed(guard, command));
});

describe("git configuration however it is given", () => {
  it.each<[string, "deny" | "ask", CommandRule]>([
    ["git --config-env=core.fsmonitor=X status", "ask", "soft.env-injection"],
    ["git --config-env core.fsmonitor=X status", "ask", "soft.env-injection"],
    ["X=reboot git --config-env=core.fsmonitor=X status", "deny", "hard.shutdown"],
    [
      "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=reboot git status",
      "deny",
      "hard.shutdown",
    ],
    [
      "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=reboot git status",
      "deny",
      "hard.shutdown",
    ],
    [
      "sudo GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=reboot git log",
      "deny",
      "hard.shutdown",
    ],
    [
      "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=reboot; git status",
      "deny",
      "hard.shutdown",
    ],
    ["export GIT_CONFIG_KEY_0=core.fsmonitor; git status", "ask", "soft.env-injection"],
    ["GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='reboot'\" git status", "deny", "hard.shutdown"],
    ["env -i GIT_CONFIG_PARAMETERS=\"'core.pager'='reboot'\" git log", "deny", "hard.shutdown"],
    ["git -c core.fsmonitor=reboot status", "deny", "hard.shutdown"],
    ["git -ccore.fsmonitor=reboot status", "deny", "hard.shutdown"],
    ["git -c Core.FSMonitor=reboot status", "deny", "hard.shutdown"],
    ["git -c include.path=/tmp/evil status", "ask", "soft.env-injection"],
    ["git -c core.hooksPath=/tmp/h commit -m x", "ask", "soft.env-injection"],
    ["git --exec-path=/tmp/x status", "ask", "soft.env-injection"],
    ["GIT_CONFIG_GLOBAL=/tmp/cfg git status", "ask", "soft.env-injection"],
    ["git fetch --upload-p=reboot origin", "deny", "hard.shutdown"],
    ["git clone --upload-pack reboot https://x.example/y", "deny", "hard.shutdown"],
    ["git clone -u reboot https://x.example/y", "deny", "hard.shutdown"],
    ["git -c alias.p='push --force' p", "ask", "soft.git-history"],
    ["git clone 'ext::sh -c reboot' x", "deny", "hard.shutdown"],
    ["git -c protocol.ext.allow=always fetch 'ext::sh -c reboot%s'", "deny", "hard.shutdown"],
  ])("%j → %s (%s)", (command, verdict, rule) => expectFinding(guard, command, verdict, rule));

  it.each([
    ["git -c user.name=me commit -m x"],
    ["git -c core.pager=cat log"],
    ["GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=me git commit -m x"],
    ["git --no-pager log"],
  ])("leaves %j alone", (command) => expectAllowed(guard, command));
});
