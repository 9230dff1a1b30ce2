import { beforeAll, describe, it } from "vitest";
import { createCommandGuard } from "../../platform/index.js";
import type { CommandGuard } from "../command-guard.js";
import { expectAllowed, expectFinding } from "../guard-test-helpers.fixture.js";
import type { CommandRule } from "../verdict/index.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

describe("disk families (hard)", () => {
  it.each<[string, CommandRule]>([
    ["nvme format /dev/nvme0n1", "hard.filesystem-format"],
    ["sudo nvme format -s1 /dev/nvme0", "hard.filesystem-format"],
    ["nvme sanitize -a 2 /dev/nvme0", "hard.filesystem-format"],
    ["badblocks -w /dev/sda", "hard.filesystem-format"],
    ["/sbin/badblocks -svw /dev/sdb", "hard.filesystem-format"],
    ["cryptsetup luksFormat /dev/sda1", "hard.filesystem-format"],
    ["cryptsetup -q luksFormat /dev/sdb1", "hard.filesystem-format"],
    ["cryptsetup erase /dev/sdb1", "hard.filesystem-format"],
    ["mke2fs /dev/sda", "hard.filesystem-format"],
    ["mkfs.f2fs /dev/sda", "hard.filesystem-format"],
    ["mkdosfs /dev/sdb1", "hard.filesystem-format"],
    ["mkntfs -f /dev/sdb1", "hard.filesystem-format"],
    ["mkreiserfs /dev/sdb1", "hard.filesystem-format"],
    ["timeout 10 wipefs --all /dev/sda", "hard.filesystem-format"],
    ["hdparm --security-erase pw /dev/sda", "hard.filesystem-format"],
    ["sg_format --format /dev/sg0", "hard.filesystem-format"],
    ["zpool labelclear -f /dev/sda", "hard.filesystem-format"],
    ["mdadm --zero-superblock /dev/sda1", "hard.filesystem-format"],
    ["parted -s /dev/sda mklabel gpt", "hard.filesystem-format"],
    ["sfdisk --delete /dev/sda", "hard.filesystem-format"],
    ["socat - SYSTEM:reboot", "hard.shutdown"],
    ["nice -n 5 env X=1 nvme format /dev/nvme0", "hard.filesystem-format"],
    ["\\nvme format /dev/nvme0", "hard.filesystem-format"],
    ["socat - /dev/sda", "hard.block-device-write"],
    ["socat FILE:x OPEN:/dev/sda", "hard.block-device-write"],
    ["dd if=/dev/zero bs=1M | socat - OPEN:/dev/sda,wronly", "hard.block-device-write"],
    ["echo x | sudo tee /dev/sda > /dev/null", "hard.block-device-write"],
    ["curl -o /dev/sda https://x.example/img", "hard.block-device-write"],
    ["sort -o /dev/sda x", "hard.block-device-write"],
    ["awk '{ print > \"/dev/sda\" }' x", "hard.block-device-write"],
  ])("denies %j (%s)", (command, rule) => expectFinding(guard, command, "deny", rule));

  it.each([
    ["mksquashfs dir out.img"],
    ["mkinitramfs -o initrd.img"],
    ["mkisofs -o out.iso dir"],
    ["nvme list"],
    ["badblocks -sv /dev/sda"],
    ["cryptsetup status root"],
    ["mkdir -p build"],
    ["socat TCP-LISTEN:8080,fork TCP:example.com:80"],
  ])("leaves %j alone", (command) => expectAllowed(guard, command));
});

describe("power families", () => {
  it.each<[string, "deny" | "ask", CommandRule]>([
    [
      "dbus-send --system --print-reply --dest=org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager.PowerOff boolean:true",
      "deny",
      "hard.shutdown",
    ],
    [
      "gdbus call --system --dest org.freedesktop.login1 --object-path /org/freedesktop/login1 --method org.freedesktop.login1.Manager.Reboot true",
      "deny",
      "hard.shutdown",
    ],
    [
      "busctl call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager PowerOff b true",
      "deny",
      "hard.shutdown",
    ],
    [
      "sudo -u root busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager StartUnit ss poweroff.target replace",
      "deny",
      "hard.shutdown",
    ],
    ["rtcwake -m off -s 60", "deny", "hard.shutdown"],
    ["rtcwake --mode=off -s 10", "deny", "hard.shutdown"],
    ["rtcwake -moff -s 10", "deny", "hard.shutdown"],
    ["/usr/sbin/rtcwake -m off -s 1", "deny", "hard.shutdown"],
    ["loginctl poweroff", "deny", "hard.shutdown"],
    ["loginctl reboot", "deny", "hard.shutdown"],
    ["openrc-shutdown -p now", "deny", "hard.shutdown"],
    ["rtcwake -m mem -s 60", "ask", "soft.service-control"],
    [
      "dbus-send --system --dest=org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager.Suspend boolean:true",
      "ask",
      "soft.service-control",
    ],
  ])("%j → %s (%s)", (command, verdict, rule) => expectFinding(guard, command, verdict, rule));

  it.each([
    ["rtcwake -m show"],
    ["loginctl list-sessions"],
    ["busctl list"],
    ["dbus-send --session --dest=org.x /x org.x.Ping"],
  ])("leaves %j alone", (command) => expectAllowed(guard, command));
});
