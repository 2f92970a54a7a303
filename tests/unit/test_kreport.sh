#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM runner's kernel-report detection, fed canned console logs:
#   - kreport_scan (kernel/vm/kreport.sh): each kind of report the debug
#     kernel prints (WARN_ON, lockdep, suspicious RCU, an RCU stall, a
#     hung task, UBSAN, KASAN, sleeping in atomic, a soft lockup, an
#     oops, a panic, the series' old "file count is 0") is found and
#     classed; a clean boot, sysrq backtraces, memory-failure notes and
#     report words in the command's own output are not reports;
#   - run-vm.sh end to end with a fake QEMU that prints the log: its
#     exit code (125 for a report, --fail-on-warn for a warning), a
#     hang (124) and a guest that never reports (126); a report's lines
#     printed on stderr, with the test a live one came during.
#
#   tests/unit/test_kreport.sh
#
# TAP lines; the last line is "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

# shellcheck source=kernel/vm/kreport.sh
. "$top/kernel/vm/kreport.sh"

# a console log: boot lines, the command's output, then the dmesg block
# with the given kernel lines (timestamps as dmesg prints them)
console() {	# FILE COMMAND-OUTPUT DMESG-LINES
	{
		echo "SeaBIOS (version 1.16.2-debian-1.16.2-1)"
		echo "CONVBENCH-COMMAND-START uptime=3.10 cpus=2"
		printf '%s\n' "$2"
		echo "CONVBENCH-COMMAND-END uptime=9.80"
		echo "CONVBENCH-DMESG-START"
		echo "[    0.000000] Linux version 6.1.192-convbench (root@build) #1 SMP PREEMPT_DYNAMIC"
		echo "[    0.512000] kvm_amd: Nested Virtualization enabled"
		printf '%s\n' "$3"
		echo "[    9.700000] convstress (312) used greatest stack depth: 11880 bytes left"
		echo "CONVBENCH-DMESG-END"
		echo "CONVBENCH-EXIT-STATUS: 0"
	} >"$1"
}

# scan NAME WANT(panic|warn|none) DMESG-LINES [COMMAND-OUTPUT]
scan() {
	local name=$1 want=$2 got
	console "$tmp/log" "${4:-ok 1 - the command}" "$3"
	kreport_scan "$tmp/log"
	if [ -n "$kreport_panic" ]; then got=panic
	elif [ -n "$kreport_warn" ]; then got=warn
	else got=none; fi
	[ "$got" = "$want" ]
	tap_ok $? "kreport: $name: $got (want $want)${kreport_panic:+: $kreport_panic}${kreport_warn:+: $kreport_warn}"
}

W='[   41.000001]'
scan "WARN_ON" warn "$W ------------[ cut here ]------------
$W WARNING: CPU: 1 PID: 312 at arch/x86/kvm/mmu/tdp_mmu.c:113 kvm_tdp_mmu_put_root+0x2ab/0x2c0 [kvm]
$W Modules linked in: kvm_amd kvm
$W ---[ end trace 0000000000000000 ]---"
scan "lockdep: circular dependency" warn "$W ======================================================
$W WARNING: possible circular locking dependency detected
$W 6.1.192-convbench #1 Not tainted"
scan "lockdep: recursive locking" warn "$W WARNING: possible recursive locking detected"
scan "lockdep: a lock without a static key" warn "$W INFO: trying to register non-static key.
$W The code is fine but needs lockdep annotation, or maybe
$W you didn't initialize this object before use?
$W turning off the locking correctness validator."
scan "suspicious RCU usage" warn "$W =============================
$W WARNING: suspicious RCU usage
$W include/linux/kvm_host.h:987 suspicious rcu_dereference_check() usage!"
scan "an RCU stall" warn "$W rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
$W rcu:     1-...!: (2 GPs behind) idle=a2c/1/0x4000000000000000 softirq=1/1 fqs=0"
scan "an RCU self-detected stall" warn "$W rcu: INFO: rcu_preempt self-detected stall on CPU"
scan "an RCU tasks stall" warn "$W INFO: rcu_tasks detected stalls on tasks:"
scan "a hung task" warn "$W INFO: task convstress:315 blocked for more than 61 seconds.
$W       Not tainted 6.1.192-convbench #1"
scan "UBSAN" warn "$W UBSAN: shift-out-of-bounds in arch/x86/kvm/mmu/mmu.c:3021:20"
scan "a file closed with count 0" warn "$W VFS: Close: file count is 0"
scan "KASAN" panic "$W ==================================================================
$W BUG: KASAN: use-after-free in kvm_zap_all_rmap_sptes+0x5d/0x1c0 [kvm]
$W Read of size 8 at addr ffff888012345678 by task convstress/312"
scan "sleeping in atomic" panic "$W BUG: sleeping function called from invalid context at mm/shmem.c:1935"
scan "a soft lockup" panic "$W watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [convstress:312]"
scan "bad page state" panic "$W BUG: Bad page state in process convstress  pfn:10a3c"
scan "a general protection fault" panic "$W general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN"
scan "an oops" panic "$W BUG: unable to handle page fault for address: ffffed1002468acf
$W Oops: 0000 [#1] PREEMPT SMP KASAN"
scan "kernel BUG at" panic "$W kernel BUG at mm/filemap.c:1553!"
scan "a warning and a KASAN report: the report wins" panic "$W WARNING: CPU: 0 PID: 1 at mm/shmem.c:1 x+0x1/0x2
$W BUG: KASAN: slab-out-of-bounds in memfile_notifier_invalidate+0x1/0x2"

scan "a clean boot" none ""
scan "sysrq backtraces (the storm's hang dump)" none "$W sysrq: Show backtrace of all active CPUs
$W NMI backtrace for cpu 1
$W CPU: 1 PID: 312 Comm: convstress Not tainted 6.1.192-convbench #1
$W Call Trace:
$W  <TASK>
$W  kvm_mmu_page_fault+0x1c3/0x9a0 [kvm]
$W  report_bug+0x1/0x2
$W sysrq: Show Blocked State
$W task:convstress      state:D stack:0     pid:315   ppid:300    flags:0x00004000"
scan "memory-failure notes of the hwpoison tests" none "$W Memory failure: 0x10a3c: recovery action for dirty LRU page: Recovered
$W Injecting memory failure at pfn 0x10a3c"
scan "report words in the command's output only" none "" \
	"# the test expects no WARNING: here
# BUG: KASAN: would be a report in dmesg
# INFO: task x blocked for more than 1 seconds"

# without the dmesg block (a crash): the whole console is read
printf '%s\n' "CONVBENCH-COMMAND-START uptime=3.10 cpus=2" \
	"[   12.000000] WARNING: CPU: 0 PID: 9 at kernel/x.c:1 y+0x1/0x2" >"$tmp/log"
kreport_scan "$tmp/log"
[ -n "$kreport_warn" ] && [ -z "$kreport_panic" ]
tap_ok $? "kreport: no dmesg block (a crash): a WARNING on the console counts"
printf '%s\n' "CONVBENCH-COMMAND-START uptime=3.10 cpus=2" \
	"[   12.000000] Kernel panic - not syncing: Fatal exception" >"$tmp/log"
kreport_scan "$tmp/log"
[ -n "$kreport_panic" ]
tap_ok $? "kreport: a kernel panic on the console"
console "$tmp/log" "ok" "$W WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2
$W WARNING: CPU: 1 PID: 2 at b.c:2 g+0x1/0x2
$W INFO: task kworker/0:1:9 blocked for more than 61 seconds."
kreport_scan "$tmp/log"
[ "$kreport_nwarn" = 3 ] && [[ $kreport_warn == *a.c:1* ]]
tap_ok $? "kreport: every warning line counted ($kreport_nwarn), the first named"

# --- run-vm.sh end to end, with a fake QEMU printing a canned console
cat >"$tmp/qemu" <<'EOF'
#!/bin/sh
case $1 in --version) echo "QEMU emulator version 7.2.0 (fake)"; exit 0 ;; esac
[ -n "${FAKE_SLEEP:-}" ] && exec sleep "$FAKE_SLEEP"
cat "$FAKE_CONSOLE"
exit 0
EOF
chmod +x "$tmp/qemu"
: >"$tmp/bzImage"
vmrun() {	# NAME WANT-RC STATUS DMESG-LINES [RUN-VM OPTIONS...]
	local name=$1 want=$2 status=$3 dmesg=$4 rc
	shift 4
	console "$tmp/console" "ok 1 - fake" "$dmesg"
	sed -i "s/^CONVBENCH-EXIT-STATUS: 0$/CONVBENCH-EXIT-STATUS: $status/" "$tmp/console"
	[ "$status" = none ] && sed -i '/^CONVBENCH-EXIT-STATUS/d' "$tmp/console"
	rm -rf "$tmp/out"
	CONVBENCH_QEMU=$tmp/qemu CONVBENCH_ACCEL=tcg FAKE_CONSOLE=$tmp/console \
		"$top/kernel/vm/run-vm.sh" --kernel "$tmp/bzImage" --out "$tmp/out" \
		--disk 1 -q "$@" -- true >"$tmp/vm.out" 2>"$tmp/vm.err"
	rc=$?
	[ $rc -eq "$want" ]
	tap_ok $? "run-vm: $name: exit $rc (want $want)"
	[ $rc -eq "$want" ] || cat "$tmp/vm.out" "$tmp/vm.err" | sed 's/^/# /'
}
vmrun "a clean run" 0 0 ""
vmrun "the command's failure" 1 1 ""
vmrun "a WARNING with --fail-on-warn" 125 0 "$W WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2" --fail-on-warn
grep -q 'kernel warning (1 report lines, the first): .*WARNING: CPU: 0' "$tmp/vm.err" &&
	grep -q '^result=warning$' "$tmp/out/vm.env" && grep -q '^kernel_warnings=1$' "$tmp/out/vm.env"
tap_ok $? "run-vm: the warning is named on stderr and in vm.env"
vmrun "a WARNING with --fail-on-warn after the command failed" 125 1 "$W WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2" --fail-on-warn
vmrun "a WARNING without --fail-on-warn: reported, not failed" 0 0 "$W WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2"
grep -q 'kernel warning' "$tmp/vm.err"
tap_ok $? "run-vm: the warning is still reported without --fail-on-warn"
vmrun "KASAN without --fail-on-warn" 125 0 "$W BUG: KASAN: use-after-free in f+0x1/0x2
$W Read of size 8 at addr ffff888001234567 by task convbench/77
$W Call Trace:
$W  kvm_zap_all_rmap_sptes+0x1/0x2"
grep -q '^  | .*BUG: KASAN: use-after-free' "$tmp/vm.err" &&
	grep -q '^  | .*Call Trace:' "$tmp/vm.err" &&
	grep -q '^  | .*kvm_zap_all_rmap_sptes' "$tmp/vm.err" &&
	! grep -q '^  | during:' "$tmp/vm.err"
tap_ok $? "run-vm: the report's lines are printed, indented (no test named for the dmesg block)"
# a panic the console printed live, during a test: the test is named
{
	echo "CONVBENCH-COMMAND-START uptime=3.10 cpus=2"
	echo "# ===== test_one"
	echo "ok 1 - one"
	echo "# ===== test_two"
	echo "[   5.100000] BUG: unable to handle page fault for address: 0000000000000008"
	echo "[   5.100001] RIP: 0010:kvm_zap_all_rmap_sptes+0x1/0x2"
	echo "[   5.100002] Kernel panic - not syncing: Fatal exception"
} >"$tmp/console"
rm -rf "$tmp/out"
CONVBENCH_QEMU=$tmp/qemu CONVBENCH_ACCEL=tcg FAKE_CONSOLE=$tmp/console \
	"$top/kernel/vm/run-vm.sh" --kernel "$tmp/bzImage" --out "$tmp/out" \
	--disk 1 -q -- true >"$tmp/vm.out" 2>"$tmp/vm.err"
rc=$?
[ $rc -eq 125 ] && grep -q '^  | during: test_two$' "$tmp/vm.err" &&
	grep -q '^  | .*RIP: 0010:kvm_zap_all_rmap_sptes' "$tmp/vm.err"
tap_ok $? "run-vm: a live panic names the test it came during and prints its lines (exit $rc)"
vmrun "a guest that never reports" 126 none ""
FAKE_SLEEP=5 vmrun "a guest that hangs past --timeout" 124 none "" --timeout 1

tap_finish
