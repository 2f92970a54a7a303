# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the in-VM tests that run guests with 2 or more vCPUs
# (busybox sh), not a test itself.
#
# Under QEMU TCG (nested SVM, 2 emulated CPUs) a guest vCPU of a
# multi-vCPU guest triple-faults about once in 300 short convbench runs
# while its page tables and IDT are intact (convbench and convstress
# check them after a SHUTDOWN exit and say so). It happens on the
# 6.1 kernel with the series and on upstream 6.12 with guest_memfd
# alike, with no exception injected by KVM (kvm_inj_exception stays
# silent): the emulator raised a page fault the guest's tables cannot
# produce. Only that failure, said that way, is run again, once, in a
# fresh --out folder; the rerun is checked like any run and the test
# prints what happened. Any other failure stands.

# The emulator's other fault, seen once in the 10-minute storms of the
# debug kernel (make stress): an L2 vCPU resumed at the instruction
# after VMRUN in L1's __svm_vcpu_run with L1's own cr3 and hung, its
# page walk faulting without end. convstress says so when the hung
# vCPU's cr3 is not the one the VMM gave its guest, which the guest
# never changes: "state its guest cannot produce".
#
# emu_fault TXT: TXT reports one of those faults (convbench's or
# convstress's words), and nothing else failed the run: every failure
# line (convbench's "CELL: FAILED: ...", a TAP "not ok") is that fault.
# tests/unit/test_emu_retry.sh feeds it right and wrong outcomes.
emu_fault_re='SHUTDOWN(; guest rip 0x[0-9a-f]*;|:) page tables and IDT intact|: vCPU [0-9]+ hung: [^;]*; state its guest cannot produce: cr3 0x[0-9a-f]+, not the guest.s page table 0x[0-9a-f]+, rip 0x[0-9a-f]+$'
emu_fault() {
	grep -qE "$emu_fault_re" "$1" &&
		! grep -E ': FAILED: |^not ok ' "$1" | grep -qvE "$emu_fault_re"
}

# cb_run_smp TXT OUTDIR ARG...: "$CB" ARG... --out=OUTDIR >TXT 2>&1, its
# exit status in $?; after that fault, once more into a fresh OUTDIR
emu_retries=0
cb_run_smp() {
	_txt=$1 _out=$2
	shift 2
	"$CB" "$@" --out="$_out" >"$_txt" 2>&1
	_rc=$?
	if [ $_rc -eq 1 ] && emu_fault "$_txt"; then
		emu_retries=$((emu_retries + 1))
		grep -m 1 'SHUTDOWN' "$_txt" | sed 's/^/# emulator triple fault, run again once: /'
		mv "$_out" "$_out.triple-fault" 2>/dev/null
		mv "$_txt" "$_txt.triple-fault"
		"$CB" "$@" --out="$_out" >"$_txt" 2>&1
		_rc=$?
	fi
	return $_rc
}
