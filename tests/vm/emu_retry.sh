# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the in-VM convbench tests (busybox sh), not a test itself.
#
# cb_run_smp TXT OUTDIR ARG...: "$CB" ARG... --out=OUTDIR >TXT 2>&1, its
# exit status in $?. For the tests' runs with 2 vCPUs: under QEMU TCG
# (nested SVM, 2 emulated CPUs) a guest vCPU triple-faults about once
# in 300 such runs while its page tables and IDT are intact (convbench
# checks them after a SHUTDOWN exit and says so). It happens on the
# 6.1 kernel with the series and on upstream 6.12 with guest_memfd
# alike, with no exception injected by KVM (kvm_inj_exception stays
# silent): the emulator raised a page fault the guest's tables cannot
# produce. Only that failure, said that way, is run again, once, in a
# fresh --out folder; the rerun is checked like any run and the test
# prints what happened. Any other failure stands.
emu_retries=0
cb_run_smp() {
	_txt=$1 _out=$2
	shift 2
	"$CB" "$@" --out="$_out" >"$_txt" 2>&1
	_rc=$?
	if [ $_rc -eq 1 ] &&
	   grep -q 'unexpected exit 8 (SHUTDOWN; guest rip 0x[0-9a-f]*; page tables and IDT intact)' "$_txt"; then
		emu_retries=$((emu_retries + 1))
		grep -m 1 'SHUTDOWN' "$_txt" | sed 's/^/# emulator triple fault, run again once: /'
		mv "$_out" "$_out.triple-fault" 2>/dev/null
		mv "$_txt" "$_txt.triple-fault"
		"$CB" "$@" --out="$_out" >"$_txt" 2>&1
		_rc=$?
	fi
	return $_rc
}
