#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress's policy for the emulator's triple fault
# (tests/stress/run-stress.sh), with a fake QEMU that prints a canned
# convstress run per VM and logs the command each VM was given: only a
# VM whose one failure is that fault, with a clean kernel log, is
# followed by a fresh VM, which continues the seed from the vCPUs'
# positions for the storm time left; each fault is counted and listed
# in the closing lines; more than --max-emu-faults fail; any other
# failure (a mismatch, a hang, the guest's own SHUTDOWN, a kernel
# warning) ends the storm at once; bad options are exit 2.
#
#   tests/unit/test_run_stress.sh
#
# TAP lines; the last line is "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

# the fake QEMU: the command from the initramfs, the next outcome of
# the plan (KIND STORM-S POSITIONS, one a line), a console as run-vm
# expects it
cat >"$tmp/qemu" <<'FAKE'
#!/bin/bash
[[ $1 == --version ]] && { echo "QEMU emulator version 7.2.0 (fake)"; exit 0; }
while (($#)); do
	[[ $1 == -initrd ]] && initrd=$2
	[[ $1 == -append ]] && echo "$2" >>"$FAKE_DIR/append"
	shift
done
cmd=$(zcat "$initrd" | (cd "$FAKE_DIR/x" && cpio -i --quiet --to-stdout etc/convbench/argv))
echo "${cmd#set -- }" | tr -d "'" >>"$FAKE_DIR/calls"
read -r kind storm pos < <(head -n 1 "$FAKE_DIR/plan")
sed -i 1d "$FAKE_DIR/plan"
status=1 dmesg=
echo "CONVBENCH-COMMAND-START uptime=40.00 cpus=4"
echo "# convstress: seed 5, 600 s, 4 vCPUs, 8 MiB per vCPU and slot"
case $kind in
pass) status=0; echo "ok 1 - 100 guest conversions verified" ;;
emu) echo "# diag: vCPU 1: registers reset by KVM at the SHUTDOWN; op 9 verifying the range" ;;
warn) dmesg="[  50.0] WARNING: CPU: 1 PID: 80 at arch/x86/kvm/mmu/mmu.c:1 f+0x1/0x2" ;;
esac
echo "# storm: $storm s"
echo "# crawls: 1 (KVM_RUNs past 30 s without an exit while KVM fixed their faults; the longest 41.0 s, none may reach 120 s)"
echo "# positions: --start-op=$pos"
echo "# merges: thp_convert_merge 7 thp_convert_merge_busy 1 thp_convert_merge_failed 0 "
case $kind in
emu | warn) echo "not ok 1 - convstress: vCPU 1: KVM_RUN 0, exit SHUTDOWN: page tables and IDT intact (op 9, verifying the range)" ;;
own) echo "not ok 1 - convstress: vCPU 0: KVM_RUN 0, exit SHUTDOWN: the guest's own triple fault (--inject) (op 5, x)" ;;
bad) echo "not ok 1 - convstress: vCPU 2 op 40: gpa 0x40001000 holds 0, want 0x5a" ;;
hang) echo "not ok 1 - convstress: vCPU 2 hung: no exit for 30 s (op 53)" ;;
foreign) echo "not ok 1 - convstress: vCPU 0 hung: no exit and no page fault fixed for 30 s (op 445); state its guest cannot produce: cr3 0x3dac000, not the guest's page table 0x4f0000, rip 0xffffffff818e3c9c" ;;
esac
if ((status)); then echo "0 passed, 1 failed"; else echo "1 passed, 0 failed"; fi
echo "CONVBENCH-COMMAND-END uptime=99.00"
echo "CONVBENCH-DMESG-START"
[[ -n $dmesg ]] && echo "$dmesg"
echo "CONVBENCH-DMESG-END"
echo "CONVBENCH-EXIT-STATUS: $status"
FAKE
chmod +x "$tmp/qemu"
mkdir -p "$tmp/bins" "$tmp/x"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bins/convstress"
chmod +x "$tmp/bins/convstress"
: >"$tmp/bzImage"

# stress NAME WANT-RC WANT-VMS PLAN-LINE... -- RUN-STRESS OPTIONS
stress() {
	local name=$1 want_rc=$2 want_vms=$3 rc vms
	shift 3
	: >"$tmp/calls"
	: >"$tmp/append"
	: >"$tmp/plan"
	while (($#)) && [[ $1 != -- ]]; do echo "$1" >>"$tmp/plan"; shift; done
	shift
	CONVBENCH_QEMU=$tmp/qemu CONVBENCH_ACCEL=tcg FAKE_DIR=$tmp \
		"$top/tests/stress/run-stress.sh" --bins "$tmp/bins" \
		--kernel "$tmp/bzImage" --seed 5 --out "$tmp/results" "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	vms=$(wc -l <"$tmp/calls")
	[ $rc -eq "$want_rc" ] && [ "$vms" -eq "$want_vms" ]
	tap_ok $? "$name: exit $rc, $vms VM(s) (want $want_rc, $want_vms)"
	[ $rc -eq "$want_rc" ] && [ "$vms" -eq "$want_vms" ] ||
		cat "$tmp/out" "$tmp/err" | sed 's/^/# /' | tail -n 15
}
# the VM's command: convstress's, out of the sh -c that counts merges
call() { sed -n "${1}p" "$tmp/calls" | sed 's/^sh -c //; s/ *; r=.*//'; }

stress "a clean storm" 0 1 "pass 600.0 900,880,870,860" -- --duration 600
[ "$(call 1)" = "convstress --duration=600 --seed=5" ] &&
	grep -q '^# run-stress: seed 5, 600 s of storm in 1 VM(s); emulator triple faults: 0 ' "$tmp/out" &&
	grep -q '^# run-stress: crawls, VM 1: 1 (KVM_RUNs past 30 s without an exit' "$tmp/out" &&
	[ "$(tail -n 1 "$tmp/out")" = "1 passed, 0 failed" ]
tap_ok $? "a clean storm: one VM with the seed, 0 faults and its crawls said, the closing line last"
grep -q 'shmem.convert_merge=1' "$tmp/append" &&
	grep -q '^# run-stress: merges, VM 1: thp_convert_merge 7 thp_convert_merge_busy 1 ' "$tmp/out" &&
	grep -q 'thp_convert_merge /proc/vmstat' "$tmp/calls"
tap_ok $? "a clean storm: the kernel merges back (shmem.convert_merge=1), the VM's merges counted"

stress "the emulator's fault once" 0 2 "emu 42.3 90,88,87,86" "pass 557.7 900,880,870,860" -- --duration 600
[ "$(call 2)" = "convstress --duration=558 --seed=5 --start-op=90,88,87,86" ]
tap_ok $? "the fault once: the second VM continues the seed from the positions for the time left ($(call 2))"
grep -q '^# run-stress: seed 5, 600 s of storm in 2 VM(s); emulator triple faults: 1 ' "$tmp/out" &&
	grep -q '^# run-stress:   at 42.3 s of storm (VM 1): vCPU 1: KVM_RUN 0, exit SHUTDOWN: page tables and IDT intact' "$tmp/out" &&
	[ "$(tail -n 1 "$tmp/out")" = "1 passed, 0 failed" ]
tap_ok $? "the fault once: counted, listed with its storm time, the storm passes"

stress "a hang on state the guest cannot produce: no second VM" 1 1 "foreign 203.6 445,479,407,480" "pass 396.4 900,880,870,860" -- --duration 600
grep -q 'emulator triple faults: 0 ' "$tmp/out"
tap_ok $? "that hang: not counted as the emulator's"

stress "the fault twice" 0 3 "emu 42.0 90,88,87,86" "emu 100.5 300,310,290,280" "pass 457.5 1,1,1,1" -- --duration 600
[ "$(call 3)" = "convstress --duration=458 --seed=5 --start-op=300,310,290,280" ] &&
	grep -q '^# run-stress:   at 142.5 s of storm (VM 2): ' "$tmp/out" &&
	grep -q 'emulator triple faults: 2 ' "$tmp/out"
tap_ok $? "the fault twice: the third VM from the second's positions, storm times added up ($(call 3))"

stress "the fault at the very end" 0 1 "emu 599.6 90,88,87,86" -- --duration 600
grep -q 'emulator triple faults: 1 ' "$tmp/out"
tap_ok $? "the fault at the end: the storm had run its time, the fault is still counted"

stress "more faults than --max-emu-faults 2" 1 3 "emu 10.0 1,1,1,1" "emu 10.0 2,2,2,2" "emu 10.0 3,3,3,3" "pass 570 4,4,4,4" -- --duration 600 --max-emu-faults 2
grep -q '^# run-stress: more emulator triple faults than --max-emu-faults 2' "$tmp/out" &&
	[ "$(tail -n 1 "$tmp/out")" = "0 passed, 1 failed" ]
tap_ok $? "more faults than allowed: the storm fails, saying so"
stress "--max-emu-faults 0: the fault fails the storm" 1 1 "emu 10.0 1,1,1,1" "pass 590 1,1,1,1" -- --duration 600 --max-emu-faults 0

stress "a data mismatch: no second VM" 1 1 "bad 80.0 9,9,9,9" "pass 520 1,1,1,1" -- --duration 600
grep -q '^# run-stress: VM 1 failed (exit 1)' "$tmp/out" && grep -q 'emulator triple faults: 0 ' "$tmp/out"
tap_ok $? "a data mismatch: the failing VM named, no fault counted"
stress "a hang: no second VM" 1 1 "hang 45.0 53,60,61,62" "pass 555 1,1,1,1" -- --duration 600
stress "the guest's own SHUTDOWN: no second VM" 1 1 "own 20.0 5,6,6,6" "pass 580 1,1,1,1" -- --duration 600
stress "the fault with a kernel warning: no second VM" 125 1 "warn 42.0 90,88,87,86" "pass 558 1,1,1,1" -- --duration 600
stress "the fault, then a mismatch" 1 2 "emu 42.0 90,88,87,86" "bad 10.0 99,99,99,99" "pass 500 1,1,1,1" -- --duration 600
grep -q 'emulator triple faults: 1 ' "$tmp/out" &&
	grep -q '(that VM alone: convstress --seed=5 --start-op=90,88,87,86 --duration=558)' "$tmp/out"
tap_ok $? "the fault, then a mismatch: the fault listed, the failing VM's own replay given"

for bad in "--duration 0" "--duration x" "--seed -1" "--max-emu-faults x" "--max-emu-faults 101" "--bogus"; do
	# shellcheck disable=SC2086 # the options are words
	"$top/tests/stress/run-stress.sh" --bins "$tmp/bins" --kernel "$tmp/bzImage" \
		--out "$tmp/results" $bad >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q '^run-stress: ' "$tmp/err"
	tap_ok $? "bad option $bad: exit 2, said why ($rc)"
done

tap_finish
