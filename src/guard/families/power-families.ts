import type { Invocation } from "../unwrap/index.js";
import { type GuardFinding, hardFinding, softFinding } from "../verdict/index.js";

/**
 * Power-off routes besides `shutdown` and `systemctl poweroff`: D-Bus calls to logind, systemd,
 * ConsoleKit or a session manager (`dbus-send`, `gdbus`, `busctl`, `qdbus`), `rtcwake -m off`, and
 * other init systems' commands. Powering off or rebooting is hard; suspending is soft.
 */

const DBUS_CLIENTS = /^(dbus-send|gdbus|busctl|qdbus|qdbus6|qdbus-qt5|dbus)$/;
const DBUS_POWER =
  /(^|[.\s/])(PowerOff|Reboot|Halt|KExec|ScheduleShutdown|RequestShutdown|RequestReboot|Shutdown|Stop)(\b|$)|(poweroff|reboot|halt|kexec)\.target/i;
const DBUS_SLEEP = /(^|[.\s/])(Suspend|Hibernate|HybridSleep|SuspendThenHibernate|Sleep)(\b|$)/i;
const INIT_POWER =
  /^(openrc-shutdown|s6-poweroff|s6-reboot|s6-halt|runit-init|xdg-shutdown|systemd-shutdown)$/;

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

function rtcwakeMode(inv: Invocation): string {
  for (let i = 0; i < inv.args.length; i++) {
    const t = (inv.args[i] as { text: string }).text;
    if (t === "-m" || t === "--mode") return inv.args[i + 1]?.text ?? "";
    if (/^--mo(d(e)?)?=/.test(t)) return t.slice(t.indexOf("=") + 1);
    if (/^-m./.test(t)) return t.slice(2);
  }
  return "standby";
}

/** Power findings for one invocation. */
export function powerFindings(inv: Invocation): GuardFinding[] {
  if (DBUS_CLIENTS.test(inv.name)) {
    const text = inv.args.map((a) => a.text).join(" ");
    if (
      DBUS_POWER.test(text) &&
      /login1|systemd1|ConsoleKit|SessionManager|ksmserver|PowerManagement|upower/i.test(text)
    )
      return [
        hardFinding("hard.shutdown", `${describe(inv)} asks the system over D-Bus to power off or reboot`),
      ];
    if (DBUS_SLEEP.test(text))
      return [softFinding("soft.service-control", `${describe(inv)} asks the system over D-Bus to suspend`)];
  }
  if (inv.name === "rtcwake") {
    const mode = rtcwakeMode(inv).toLowerCase();
    if (mode === "off")
      return [hardFinding("hard.shutdown", `${describe(inv)} -m off powers the machine off`)];
    if (/^(disk|mem|standby|freeze)$/.test(mode))
      return [softFinding("soft.service-control", `${describe(inv)} -m ${mode} puts the machine to sleep`)];
  }
  if (INIT_POWER.test(inv.name))
    return [hardFinding("hard.shutdown", `${describe(inv)} shuts down or restarts the machine`)];
  if (/^(pm-suspend|pm-hibernate|pm-suspend-hybrid|zzz|systemd-sleep)$/.test(inv.name))
    return [softFinding("soft.service-control", `${describe(inv)} puts the machine to sleep`)];
  return [];
}
