#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convstress's hang and SHUTDOWN reports, on faults of its own making
# (--inject on vCPU 0, in the project's kernel): a guest that loops
# without exits must be reported hung within the --hang-timeout, with a
# report on every vCPU (KVM's counters, the thread's times and stack,
# the guest's registers) whose verdict for vCPU 0 is "runs the guest";
# a guest that triple-faults must be reported as its own SHUTDOWN, which
# the emulator-retry rule (emu_retry.sh) must not take for the
# emulator's; nor a hang, while a hang on a cr3 the VMM did not give
# the guest (--inject=cr3, the guest's one departure) is said to be
# state the guest cannot produce. A run the emulator's own triple fault
# (on another vCPU, before the injected fault) ended is run once more.
# busybox sh; TAP lines and a closing "N passed, N failed".
cd "$(dirname "$0")" || exit 1
. ./emu_retry.sh
out=${TMPDIR:-/tmp}/test_stress_diag.$$
. ./tap.sh

# every vCPU of a 4-vCPU report: KVM's counters, its verdict, its stack
each_vcpu() {	# FILE PATTERN
	for v in 0 1 2 3; do
		grep -q "^# diag: vCPU $v$2" "$1" || return 1
	done
}

# convstress ARG... into $out, its status in rc; when the emulator's
# triple fault (emu_retry.sh: that and nothing else failed the run, on
# a vCPU the injection did not touch) came before the injected fault,
# once more: the test is about the injected one
storm() {
	./convstress "$@" >"$out" 2>&1
	rc=$?
	grep '^not ok' "$out" >"$out.fail"
	if [ $rc -eq 1 ] && emu_fault "$out.fail"; then
		grep -m 1 'SHUTDOWN' "$out.fail" | sed 's/^/# emulator triple fault, run again once: /'
		./convstress "$@" >"$out" 2>&1
		rc=$?
	fi
}

t0=$(date +%s)
storm --duration=120 --seed=7 --inject=spin@5 --hang-timeout=3
t=$(($(date +%s) - t0))
grep -v '^# [a-z]' "$out" | grep -v '^# diag:  ' | sed 's/^/# spin: /' | head -n 40
[ $rc -eq 1 ] && grep -q '^not ok 1 - convstress: vCPU 0 hung: no exit and no page fault fixed for 3 s (op 4)$' "$out"
tap_ok $? "spin: exit 1 ($rc), vCPU 0 hung after op 4, in $t s"
grep -q '^# diag: vCPU 0 \[this report\] (tid [0-9]*, R): in KVM_RUN; op 4 done, op 5 in --inject' "$out"
tap_ok $? "spin: the report names vCPU 0, its thread, KVM_RUN and the guest's op and phase"
sed -n '/^# diag: vCPU 0 \[this report\]/,/^# diag: vCPU 1 /p' "$out" >"$out.v0"
# since its entry into KVM_RUN it may have faulted in the op's range
# first; between the looks it only loops
grep -q '^# diag:   in this KVM_RUN for [0-9.]* s: exits +[0-9]*, pf_taken +[0-9]* (fixed +[0-9]*, .*; L1 kernel +[0-9.]* s, guest +[0-9.]* s$' "$out.v0" &&
	grep -q '^# diag:   verdict since it entered: ' "$out.v0" &&
	grep -q '^# diag:   verdict between the looks: the thread runs the guest, no exit to the VMM' "$out.v0"
rc=$?
tap_ok $rc "spin: vCPU 0's counters since it entered KVM_RUN, its verdict between the looks: it runs the guest"
[ $rc -eq 0 ] || grep '^# diag:   ' "$out.v0" | head -n 8
each_vcpu "$out" '.*(tid [0-9]*, .): ' &&
	[ "$(grep -c '^# diag:   KVM over the [0-9.]* s between the looks: exits +[0-9]*, pf_taken +[0-9]* (fixed' "$out")" -eq 4 ] &&
	[ "$(grep -c '^# diag:   thread CPU time between the looks: L1 kernel +' "$out")" -eq 4 ] &&
	[ "$(grep -c '^# diag:   verdict between the looks: ' "$out")" -eq 4 ]
tap_ok $? "spin: every vCPU's thread, KVM counters, CPU times and verdict"
grep -q '^# diag: vCPU 0 thread, kernel stack:' "$out" &&
	grep -q '^# diag: thread hr-D (tid [0-9]*)' "$out" &&
	grep -q '^# diag: sysrq-l (running CPUs) and sysrq-w (blocked tasks): in the kernel log' "$out"
tap_ok $? "spin: the threads' stacks and states, sysrq into the kernel log"
grep -q '^# diag: vCPU 0: [0-9]* kvm_page_fault\|^# diag: vCPU 0: no kvm_page_fault' "$out"
tap_ok $? "spin: KVM's page faults traced"
# vCPU 0's registers; another's may be reset by a SHUTDOWN of the
# emulator's own making (TCG's nested SVM) during the looks
grep -q '^# diag: vCPU 0: guest rip 0x[0-9a-f]* rsp ' "$out" &&
	each_vcpu "$out" ': \(guest rip 0x[0-9a-f]* rsp \|registers reset by KVM at the SHUTDOWN\)' &&
	grep -q '^# diag: 4 of 4 vCPUs out of KVM_RUN' "$out"
rc=$?
tap_ok $rc "spin: every vCPU kicked out of KVM_RUN, its registers printed"
# which vCPU stayed in, or came out reset, and how long the kicks took
[ $rc -eq 0 ] || grep -E 'vCPUs out of KVM_RUN|still in KVM_RUN|registers (reset|unreadable)|: guest rip ' "$out" | cut -c1-200
grep -q '^# positions: --start-op=4,[0-9]*,[0-9]*,[0-9]*$' "$out"
tap_ok $? "spin: each vCPU's position printed, vCPU 0 at op 4"
grep '^not ok' "$out" >"$out.fail"
! grep -q 'state its guest cannot produce' "$out" && ! emu_fault "$out.fail"
tap_ok $? "spin: on the guest's own cr3, the emulator-retry rule does not take the hang for the emulator's"

# the one change the storm's guest never makes: a cr3 of its own
storm --duration=120 --seed=7 --inject=cr3@5 --hang-timeout=3
grep '^not ok\|cr3 0x' "$out" | sed 's/^/# cr3: /'
# the guest's page table, as the other vCPUs show it: the emulator's
# fault on one of them (TCG's nested SVM) may leave it reset or showing
# L1's own registers (a kernel rip, L1's cr3), so the cr3 that most
# vCPUs 1-3 running guest code (a user rip) hold
root=$(sed -n 's/^# diag: vCPU [123]: guest rip 0x[0-7][0-9a-f]\{0,6\} .* cr3 \(0x[0-9a-f]*\);.*/\1/p' "$out" |
	sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
[ $rc -eq 1 ] && [ -n "$root" ] &&
	grep -q "^not ok 1 - convstress: vCPU 0 hung: no exit and no page fault fixed for 3 s (op 4); state its guest cannot produce: cr3 $(printf '0x%x' $((root | 8))), not the guest's page table $root, rip 0x[0-9a-f]*\$" "$out"
tap_ok $? "cr3: exit 1 ($rc), vCPU 0's hang on a cr3 that is not its guest's ($root with PWT) said so"
grep '^not ok' "$out" >"$out.fail"
! emu_fault "$out.fail"
tap_ok $? "cr3: the emulator-retry rule does not take that hang for the emulator's either"

storm --duration=120 --seed=7 --inject=triple@5
grep '^not ok' "$out" | sed 's/^/# triple: /'
[ $rc -eq 1 ] && grep -q "^not ok 1 - convstress: vCPU 0: KVM_RUN 0, exit SHUTDOWN: the guest's own triple fault (--inject) (op 5, " "$out"
tap_ok $? "triple: exit 1 ($rc), vCPU 0's SHUTDOWN named as the guest's own"
grep '^not ok' "$out" >"$out.fail"
! emu_fault "$out.fail"
tap_ok $? "triple: the emulator-retry rule does not take it for the emulator's"
grep -q '^# diag: vCPU 0 \[this report\] (tid [0-9]*, .): stopped at its SHUTDOWN exit' "$out" &&
	grep -q '^# diag: vCPU 0: registers reset by KVM at the SHUTDOWN; op 5' "$out" &&
	each_vcpu "$out" '.*(tid [0-9]*, .): '
tap_ok $? "triple: the report on every vCPU, vCPU 0 stopped at its SHUTDOWN"

./convstress --inject=spin@0 >"$out" 2>&1
rc1=$?
./convstress --start-op=1,2 >>"$out" 2>&1
rc2=$?
./convstress --hang-timeout=0 >>"$out" 2>&1
rc3=$?
[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] &&
	grep -q "^convstress: --start-op gives 2 positions for 4 vCPUs" "$out"
tap_ok $? "bad --inject, --start-op, --hang-timeout: exit 2, said why ($rc1 $rc2 $rc3)"

rm -f "$out" "$out.fail" "$out.v0"
tap_finish
