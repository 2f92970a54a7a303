#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the convbench test VM, copied into the initramfs by run-vm.sh.
# Runs the command stored in /etc/convbench/argv with cwd /out, writes /out
# as a tar to the raw disk /dev/vda, prints the exit-status marker the host
# looks for, then reboots (QEMU runs with -no-reboot, so it exits; the
# kernel has no ACPI, so a power-off would only halt).
# Never let this script end: PID 1 exiting is a kernel panic.

/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=dumb
export CONVBENCH_OUT=/out

missing=
try_mount() {	# TYPE DIR: a kernel without the fs is fine, note it
	mkdir -p "$2"
	mount -t "$1" "$1" "$2" 2>/dev/null || missing="$missing $1"
}

try_mount devtmpfs /dev
# The host may lack mknod rights for /dev/console in the cpio: reopen it.
exec </dev/null >/dev/console 2>&1
try_mount proc /proc
try_mount sysfs /sys
try_mount devpts /dev/pts
try_mount tmpfs /tmp
try_mount tracefs /sys/kernel/tracing
try_mount debugfs /sys/kernel/debug
try_mount bpf /sys/fs/bpf
[ -n "$missing" ] && echo "convbench-init: not mounted:$missing"

thp=/sys/kernel/mm/transparent_hugepage/shmem_enabled
[ -e "$thp" ] && echo within_size >"$thp"

uptime_s() { read -r up _ </proc/uptime && echo "$up"; }

mkdir -p /out
cd /out || exit 1	# unreachable: /out was just created on rootfs
# shellcheck disable=SC1091
. /etc/convbench/argv	# set -- COMMAND ARGS..., quoted by the host
# shellcheck disable=SC1091
[ -f /etc/convbench/env ] && . /etc/convbench/env	# run-vm.sh --env

# run-vm.sh --split-stderr: stderr on the second serial port, unchanged
# (no CR before LF), so that the host can pass it on as it comes
err=/dev/console
if [ -f /etc/convbench/split-stderr ]; then
	if [ -c /dev/ttyS1 ] && stty -F /dev/ttyS1 raw -echo 2>/dev/null; then
		err=/dev/ttyS1
	else
		echo "convbench-init: no /dev/ttyS1: stderr stays on the console"
	fi
fi

echo "CONVBENCH-COMMAND-START uptime=$(uptime_s) cpus=$(nproc)"
if [ -f /etc/convbench/pass-signals ] && [ "$err" = /dev/ttyS1 ]; then
	# run-vm.sh --pass-signals: a line INT or TERM on ttyS1 is a signal
	# for the command (in the background: this shell reads the port)
	"$@" 2>"$err" &
	pid=$!
	while read -r sig; do
		case $sig in INT | TERM) kill -s "$sig" "$pid" 2>/dev/null ;; esac
	done </dev/ttyS1 &
	watcher=$!
	wait "$pid"
	status=$?
	kill "$watcher" 2>/dev/null
else
	"$@" 2>"$err"
	status=$?
fi
# The host prints everything up to this marker as the command's output.
echo "CONVBENCH-COMMAND-END uptime=$(uptime_s)"
# Every kernel report of the boot, also those below the console's log
# level (the kernel runs quiet, so a WARNING never reaches the console):
# the host looks for WARNING, BUG, KASAN and lockdep reports in here.
echo "CONVBENCH-DMESG-START"
dmesg
echo "CONVBENCH-DMESG-END"

# Leftover background processes must not write while /out is archived.
kill -KILL -1 2>/dev/null

echo "$status" >/out/.exit-status
if [ ! -b /dev/vda ]; then
	echo "convbench-init: no /dev/vda (virtio-blk missing?), /out is lost"
elif ! tar -C /out -cf /dev/vda . || ! sync; then
	echo "convbench-init: writing /out to /dev/vda failed (too small? see --disk)"
fi
# Printed after the disk is synced: the marker means the results are complete.
echo "CONVBENCH-EXIT-STATUS: $status"

reboot -f
echo b >/proc/sysrq-trigger
while :; do sleep 3600; done
