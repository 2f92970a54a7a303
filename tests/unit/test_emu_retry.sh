#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The emulator-retry rules of the in-VM tests, with fake commands: only
# the emulator's triple fault (a SHUTDOWN with the guest's page tables
# and IDT intact), said that way and alone, is run again, and as often
# as the rule says; every other failure stands at once.
#   - emu_fault (tests/lib/emu_retry.sh) on canned outputs;
#   - cb_run_smp: a fake convbench that faults once (one rerun, pass),
#     always (fail after one rerun), or fails otherwise (no rerun);
#   - test_stress_short.sh: a fake convstress, the same cases with its
#     two reruns, the seed of the first run passed on.
# The scripts run under busybox sh, as in the VM (plain sh without it).
#
#   tests/unit/test_emu_retry.sh
#
# TAP lines; the last line is "N passed, N failed".

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tests/vm
lib=$top/tests/lib
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"
SH=sh
command -v busybox >/dev/null 2>&1 && SH="busybox sh"

# --- canned failure lines, as convbench and convstress print them
EMU_CB='destructive 64K: FAILED: vCPU 1: unexpected exit 8 (SHUTDOWN; guest rip 0x4021a3; page tables and IDT intact)'
EMU_CB_ERR='convbench: destructive 64K: vCPU 1: unexpected exit 8 (SHUTDOWN; guest rip 0x4021a3; page tables and IDT intact)'
EMU_ST='not ok 1 - convstress: vCPU 0: KVM_RUN 0, exit SHUTDOWN: page tables and IDT intact'
TABLES_CB='inplace 4K: FAILED: vCPU 0: unexpected exit 8 (SHUTDOWN; guest rip 0x4021a3; PD[0][3] is 0x683, not 0x600083)'
TABLES_ST='not ok 1 - convstress: vCPU 2: KVM_RUN 0, exit SHUTDOWN: IDT vector 14 changed'
BAD_CB='inplace 64K: FAILED: vCPU 0: conversion 7 (to-shared): gpa 0x40001000 holds 0x0, want 0x5a5a'
BAD_ST='not ok 1 - convstress: vCPU 1 op 12: gpa 0x60003000 holds 0x0, want 0x9e37'
HANG_ST='not ok 1 - convstress: vCPU 2 hung: no exit for 30 s (op 53)'
FOREIGN_ST="not ok 1 - convstress: vCPU 0 hung: no exit and no page fault fixed for 30 s (op 445); state its guest cannot produce: cr3 0x3dac000, not the guest's page table 0x4f0000, rip 0xffffffff818e3c9c"

# --- emu_fault on canned outputs
fault() {	# WANT(0 yes, 1 no) NAME LINE...
	want=$1 name=$2
	shift 2
	printf '%s\n' "$@" >"$tmp/canned"
	$SH -c '. "$1/emu_retry.sh"; emu_fault "$2"' _ "$lib" "$tmp/canned"
	[ $? -eq "$want" ]
	tap_ok $? "emu_fault: $name"
}
fault 0 "convbench's triple fault, stdout and stderr" "$EMU_CB" "$EMU_CB_ERR"
fault 0 "convstress's triple fault" '# replay: convstress --seed=5' "$EMU_ST" '0 passed, 1 failed'
fault 0 "the fault in two cells of one run" "$EMU_CB" "$(echo "$EMU_CB" | sed 's/64K/2M/')"
fault 1 "no failure at all" 'destructive 4K: 100 conversions, all verified' '1 passed, 0 failed'
fault 1 "a SHUTDOWN with a changed page table" "$TABLES_CB"
fault 1 "a SHUTDOWN with a changed IDT" "$TABLES_ST"
fault 1 "a data mismatch" "$BAD_CB"
fault 1 "a hang" "$HANG_ST"
fault 1 "convstress's hang on state its guest cannot produce" "$FOREIGN_ST" '0 passed, 1 failed'
fault 1 "the fault and a data mismatch in another cell" "$EMU_CB" "$BAD_CB"
fault 1 "the fault and a mismatch in the storm's TAP line" "$EMU_CB_ERR" "$BAD_ST"
fault 1 "the words without SHUTDOWN" 'not ok 1 - convstress: page tables and IDT intact'

# --- a fake command: each run takes the next outcome of its plan file
# (one a line: pass, emu, tables, bad, emu-rc2, crash), logs its
# arguments, prints the storm's seed lines and its closing line
cat >"$tmp/fake" <<'EOF'
#!/bin/sh
plan=$FAKE_DIR/plan
what=$(head -n 1 "$plan")
[ -n "$what" ] || what=pass
sed -i 1d "$plan" 2>/dev/null
echo "$*" >>"$FAKE_DIR/calls"
for a; do case $a in --out=*) mkdir -p "${a#--out=}" && echo "$what" >"${a#--out=}/mark" ;; esac; done
seed=1234
for a; do case $a in --seed=*) seed=${a#--seed=} ;; esac; done
echo "# convstress: seed $seed, 15 s, 4 vCPUs, 8 MiB per vCPU and slot"
echo "# replay: convstress --seed=$seed --duration=15 --vcpus=4 --range-mb=8"
case $what in
pass) echo "ok 1 - 10 guest conversions verified"; echo "1 passed, 0 failed"; exit 0 ;;
emu) echo "$EMU_LINE"; echo "0 passed, 1 failed"; exit 1 ;;
emu-rc2) echo "$EMU_LINE"; exit 2 ;;
tables) echo "$TABLES_LINE"; echo "0 passed, 1 failed"; exit 1 ;;
bad) echo "$BAD_LINE"; echo "0 passed, 1 failed"; exit 1 ;;
crash) echo "$EMU_LINE"; kill -SEGV $$ ;;
esac
EOF
chmod +x "$tmp/fake"

calls() { if [ -f "$tmp/calls" ]; then wc -l <"$tmp/calls" | tr -d ' '; else echo 0; fi; }

# cb_run_smp with PLAN...: its status, the calls made, the retry count
smp() {	# NAME WANT-RC WANT-CALLS WANT-RETRIES PLAN...
	name=$1 want_rc=$2 want_calls=$3 want_retries=$4
	shift 4
	rm -rf "$tmp/calls" "$tmp/run" "$tmp/run."* "$tmp/txt" "$tmp/txt."*
	printf '%s\n' "$@" >"$tmp/plan"
	got=$(FAKE_DIR=$tmp CB=$tmp/fake EMU_LINE=$EMU_CB TABLES_LINE=$TABLES_CB \
		BAD_LINE=$BAD_CB $SH -c '. "$1/emu_retry.sh"
		cb_run_smp "$2/txt" "$2/run" --mode=inplace --vcpus=2
		echo "rc=$? retries=$emu_retries"' _ "$lib" "$tmp" | tail -n 1)
	[ "$got" = "rc=$want_rc retries=$want_retries" ] && [ "$(calls)" -eq "$want_calls" ]
	tap_ok $? "cb_run_smp: $name ($got, $(calls) runs; want rc=$want_rc retries=$want_retries, $want_calls runs)"
}
smp "passes: one run" 0 1 0 pass
smp "the fault once: rerun, pass" 0 2 1 emu pass
[ "$(cat "$tmp/run/mark" 2>/dev/null)" = pass ] &&
	[ "$(cat "$tmp/run.triple-fault/mark" 2>/dev/null)" = emu ] &&
	grep -q 'SHUTDOWN' "$tmp/txt.triple-fault"
tap_ok $? "cb_run_smp: the faulted run's folder and text are kept aside, the rerun gets a fresh folder"
smp "the fault every time: one rerun, fail" 1 2 1 emu emu pass
smp "a data mismatch: fail at once" 1 1 0 bad pass
smp "a SHUTDOWN with changed tables: fail at once" 1 1 0 tables pass
smp "the fault's words with exit 2: fail at once" 2 1 0 emu-rc2 pass
smp "a crash after the fault's words: fail at once" 139 1 0 crash pass
smp "a mismatch, then the fault: no rerun of the mismatch" 1 1 0 bad emu

# --- test_stress_short.sh, in a copy of the VM's test folder
mkdir -p "$tmp/bin"
cp "$vm/test_stress_short.sh" "$lib/emu_retry.sh" "$tmp/bin/"
cp "$tmp/fake" "$tmp/bin/convstress"
short() {	# NAME WANT-RC WANT-CALLS PLAN...
	name=$1 want_rc=$2 want_calls=$3
	shift 3
	rm -f "$tmp/calls"
	printf '%s\n' "$@" >"$tmp/plan"
	FAKE_DIR=$tmp EMU_LINE=$EMU_ST TABLES_LINE=$TABLES_ST BAD_LINE=$BAD_ST \
		STRESS_S=15 TMPDIR=$tmp $SH "$tmp/bin/test_stress_short.sh" \
		>"$tmp/short.out" 2>&1
	rc=$?
	[ $rc -eq "$want_rc" ] && [ "$(calls)" -eq "$want_calls" ]
	tap_ok $? "test_stress_short: $name (exit $rc, $(calls) runs; want $want_rc, $want_calls)"
}
short "passes: one run" 0 1 pass
short "the fault once: run again, pass" 0 2 emu pass
[ "$(sed -n 2p "$tmp/calls")" = "--duration=15 --seed=1234" ] &&
	[ "$(sed -n 1p "$tmp/calls")" = "--duration=15" ]
tap_ok $? "test_stress_short: the rerun replays the first run's seed ($(sed -n 2p "$tmp/calls"))"
grep -q "^# run 1: $EMU_ST" "$tmp/short.out" &&
	grep -q '^# emulator triple fault' "$tmp/short.out" &&
	[ "$(tail -n 1 "$tmp/short.out")" = "1 passed, 0 failed" ]
tap_ok $? "test_stress_short: the faulted run's lines kept as comments, the last run's closing line last"
grep -q '^# emulator triple faults: 1' "$tmp/short.out"
tap_ok $? "test_stress_short: the count of emulator faults is printed"
short "the fault twice: two reruns, pass" 0 3 emu emu pass
short "the fault every time: fail after two reruns" 1 3 emu emu emu pass
tail -n 1 "$tmp/short.out" | grep -q '^0 passed, 1 failed$'
tap_ok $? "test_stress_short: a final fault is the failing run's closing line"
short "a data mismatch: fail at once" 1 1 bad pass
short "a SHUTDOWN with a changed IDT: fail at once" 1 1 tables pass
short "the fault's words with exit 2: fail at once" 2 1 emu-rc2 pass
short "the fault, then a mismatch: fail, no third run" 1 2 emu bad pass

tap_finish
