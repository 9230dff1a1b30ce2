#!/bin/sh
# PID 1 of a user-mode Linux kernel booted on the host's own filesystem (hostfs): a Linux with the
# cgroup v2 tree and its memory and pids controllers, which this machine's kernel keeps in v1.
# The kernel passes unknown boot parameters to init as its environment: ECHO_UML_REPO (the
# repository) and ECHO_UML_PROBE (the TypeScript file to run there). The probe's output goes to the
# console, which the test reads; the machine powers off when it ends.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t cgroup2 none /sys/fs/cgroup
# A private tmpfs for temporary files, on /run rather than over /tmp: the repository may be under /tmp.
mount -t tmpfs tmp /run
mkdir -p /run/tmp
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/run/tmp TMPDIR=/run/tmp
cd "$ECHO_UML_REPO" && node bin/run-ts.js "$ECHO_UML_PROBE" 2>&1
echo "UML-PROBE-EXIT $?"
poweroff -f
