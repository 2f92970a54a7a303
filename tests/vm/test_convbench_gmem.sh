#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convbench --mode=gmem end to end in the project's 6.12 kernel
# (FLAVOUR=gmem): guest_memfd on a software-protected VM, converted as
# QEMU does, with both triggers (MAP_GPA_RANGE; the access-kind flip and
# KVM_EXIT_MEMORY_FAULT) and both content semantics, at 4K, 64K and 2M,
# one and two vCPUs. Every conversion must be verified by the guest, the
# files of --out complete, every samples.csv must satisfy the timing
# invariants, the failure paths (a failing handler, a handler that does
# nothing, a corrupted word) must be caught, and --trace must count the
# 6.12 conversion path's functions exactly. The v5 modes must exit 4
# here, naming the kernel they need.
#
# In the 6.1 kernel (the v5 series) it checks the other half only:
# --mode=gmem exits 4 naming the 6.12 kernel.
# busybox sh; TAP lines and a closing "N passed, N failed" line.

cd "$(dirname "$0")" || exit 1
CB=./convbench
CHECK=./samples_check
. ./emu_retry.sh
. ./tap.sh
work=${TMPDIR:-/tmp}/test_convbench_gmem.$$
mkdir -p "$work"

finish() {
	rm -rf "$work"
	tap_finish
}

if ! "$CB" --help >/dev/null 2>&1; then
	tap_skip convbench "convbench not built"
	finish
fi

# a mode asked for on the wrong kernel: exit 4, the message names the
# kernel that has it, summary.json still says why
wrong_kernel() {	# MODE KERNEL-WORDS
	out=$work/wrong-$1
	"$CB" --mode="$1" --iterations=1 --out="$out" >"$out.txt" 2>&1
	rc=$?
	[ $rc -eq 4 ] && grep -q "^convbench: --mode=$1: .*$2" "$out.txt" &&
		grep -q "\"$1\": \"" "$out/summary.json"
	tap_ok $? "--mode=$1 on kernel $(uname -r): exit 4 naming $2 (got $rc)"
	[ $rc -eq 4 ] || sed 's/^/# /' "$out.txt" | tail -n 5
}

case $(uname -r) in
6.1.*)
	wrong_kernel gmem "runs in the 6.12 kernel"
	finish ;;
esac

wrong_kernel destructive "runs in the project's 6.1 kernel"
wrong_kernel inplace "runs in the project's 6.1 kernel"

check_samples() {	# check_samples CSV NAME
	"$CHECK" "$1" >"$work/check.txt" 2>&1
	tap_ok $? "$2: samples.csv satisfies the timing invariants"
	sed 's/^/# /' "$work/check.txt" | tail -n 6
}

# SIZE TRIGGER ITERATIONS CONTENT [OPTION...]: CONTENT is preserve or
# no-preserve, what the guest checks after every conversion is its old
# data or zeroes
run_cell() {
	size=$1 trig=$2 iters=$3 content=$4
	shift 4
	name="gmem $size $trig $content${1:+ $*}"
	out=$work/gmem-$size-$trig-$content$(echo "$*" | tr -dc a-z0-9)
	set -- --mode=gmem --size="$size" --trigger="$trig" --"$content" \
		--rounds=1 --iterations="$iters" --warmup=2 --stall-timeout=20 "$@"
	case " $* " in
	*" --vcpus=2 "*) cb_run_smp "$out.txt" "$out" "$@" ;;
	*) "$CB" "$@" --out="$out" >"$out.txt" 2>&1 ;;
	esac
	rc=$?
	tap_ok $rc "$name: convbench exits 0 (got $rc)"
	[ $rc -eq 0 ] || sed 's/^/# /' "$out.txt" | tail -n 20
	vc=1
	case " $* " in *" --vcpus=2 "*) vc=2 ;; esac
	for dir in to-shared to-private; do
		grep -q "^gmem $size $dir ($trig, $content, $vc vCPUs*): $((vc * iters)) conversions, all verified" "$out.txt"
		tap_ok $? "$name $dir: $((vc * iters)) conversions, all verified"
	done
	lines=$(wc -l <"$out/samples.csv" 2>/dev/null || echo 0)
	[ "$lines" -eq $((2 * vc * iters + 1)) ]
	tap_ok $? "$name: samples.csv has $((2 * vc * iters)) samples ($((lines - 1)))"
	other=$(awk -F, 'NR > 1 && $2 != "gmem"' "$out/samples.csv" 2>/dev/null | wc -l)
	grep -q '"mode": "gmem"' "$out/summary.json" 2>/dev/null &&
		grep -q '"all_verified": true' "$out/summary.json" &&
		! grep -q '"all_verified": false' "$out/summary.json" &&
		[ "$other" -eq 0 ]
	tap_ok $? "$name: summary.json and samples.csv say gmem, all verified"
	# an implicit conversion takes one fault per 4K page, an explicit one
	# exit (exits: column 14)
	want=1
	[ "$trig" = implicit ] && want=$(($(echo "$size" | sed 's/K$/*1024/; s/M$/*1048576/') / 4096))
	bad=$(awk -F, -v w="$want" 'NR > 1 && $14 != w' "$out/samples.csv" 2>/dev/null | wc -l)
	[ "$lines" -gt 1 ] && [ "$bad" -eq 0 ]
	tap_ok $? "$name: every conversion took $want exit(s) ($bad did not)"
	check_samples "$out/samples.csv" "$name"
}

# old data kept (--preserve): the guest copies it aside and back
run_cell 4K explicit 100 preserve
run_cell 2M explicit 10 preserve
run_cell 64K implicit 20 preserve
run_cell 2M implicit 3 preserve
# zeroes seen (--no-preserve); convbench checks its own timings too
run_cell 4K implicit 50 no-preserve --debug
run_cell 64K explicit 20 no-preserve --debug
run_cell 2M explicit 5 no-preserve --debug
run_cell 64K explicit 20 preserve --vcpus=2 --debug

# --- failure paths: run NAME ARGS... (rc, stderr in $work/NAME.err)
run() {
	name=$1
	shift
	"$CB" --mode=gmem --rounds=1 --warmup=2 --stall-timeout=20 "$@" \
		>"$work/$name.out" 2>"$work/$name.err"
	rc=$?
}
run handler-fails --iterations=10 --inject=fail@7
grep -q "^convbench: gmem 4K: vCPU 0: conversion 7: converting gpa 0x40000000+0x1000 to private: Input/output error (injected failure)$" "$work/handler-fails.err" &&
	[ $rc -eq 1 ]
tap_ok $? "a failing handler: exit 1, the message names cell, vCPU, conversion, range and errno ($rc)"

# a handler that does nothing: the guest's access kind flipped, the
# attributes did not follow, so it faults until the exit bound
run skip --iterations=10 --inject=skip@6
grep -q "^convbench: gmem 4K: vCPU 0: conversion 6 (to-shared) took more than [0-9]* exits (guest rip 0x[0-9a-f]*, last exit MEMORY_FAULT at gpa 0x40000000)" "$work/skip.err" &&
	[ $rc -eq 1 ]
tap_ok $? "a handler that does nothing: the exit bound ends it, last exit MEMORY_FAULT ($rc)"
[ $rc -eq 1 ] || sed 's/^/# /' "$work/skip.err" | tail -n 5

run corrupt --iterations=10 --no-preserve --size=64K --trigger=implicit \
	--inject=corrupt@6:2048
grep -q "conversion 6 (to-shared): gpa 0x40000800 holds 0xff00ff00ff00ff, expected 0$" "$work/corrupt.err" &&
	[ $rc -eq 1 ]
tap_ok $? "a word the host corrupts is seen by the guest's verifier, with its gpa ($rc)"
[ $rc -eq 1 ] || sed 's/^/# /' "$work/corrupt.err" | tail -n 5

# --- --counts: the work of a gmem conversion; what cannot be counted
# here says why instead of a 0
"$CB" --mode=gmem --size=4K --rounds=1 --iterations=5 --warmup=2 --counts \
	--out="$work/counts" >"$work/counts.txt" 2>&1
rc=$?
grep -qE '^  gmem +4K +to-shared +exits 2 npt_faults 1 ' "$work/counts.txt" &&
	grep -q '"not_counted_why": "gmem: guest_memfd.s pages are not swap-backed' "$work/counts/summary.json" &&
	grep -q '"not_counted_why": "gmem: 6.12 clears a private folio in kvm_gmem_prepare_folio()' "$work/counts/summary.json"
r=$?
tap_ok $r "--counts: one exit and one NPT fault per 4K conversion; pages freed and zeroed not counted, and why ($rc)"
[ $r -eq 0 ] || grep '^  gmem' "$work/counts.txt" | sed 's/^/# /' | head -n 4
# 6.12 inlines kvm_flush_remote_tlbs() into the attributes update: the
# flush is its request, and each conversion zaps and flushes once
tlb=$(sed -n 's/^  gmem  *4K  *to-[a-z]* .* tlb_flush_requests \([^ ]*\) .*/\1/p' "$work/counts.txt" | tr '\n' ' ')
[ "$tlb" = "1 1 " ]
tap_ok $? "--counts: one TLB flush request per 4K conversion, both directions (got: ${tlb:-none})"

# --- --trace=all: the 6.12 conversion path, counted per direction.
# Each explicit conversion sets the attributes once; each to-shared
# punches the guest_memfd once, which zaps once; each to-private takes
# one private fault per page (4K: one), to-shared none.
it=20
"$CB" --mode=gmem --size=4K --rounds=1 --iterations=$it --warmup=2 \
	--trace=all --out="$work/trace" >"$work/trace.txt" 2>&1
rc=$?
tap_ok $rc "gmem --trace=all runs (got $rc)"
tt=$work/trace/trace-totals.csv
# calls of PROBE in the recorded conversions of "gmem 4K DIR"
calls() {	# PROBE DIR
	awk -F, -v p="$1" -v d="$2" '$1 == p && $3 == "gmem" && $4 == "4K" &&
		$5 == d { print $6; exit }' "$tt" 2>/dev/null
}
for spec in "kvm_vm_set_mem_attributes to-shared $it" \
	    "kvm_vm_set_mem_attributes to-private $it" \
	    "kvm_gmem_punch_hole to-shared $it" \
	    "kvm_gmem_invalidate_begin to-shared $it" \
	    "kvm_gmem_punch_hole to-private 0" \
	    "kvm_faultin_pfn_private to-shared 0"; do
	set -- $spec
	got=$(calls "$1" "$2")
	[ "${got:-0}" -eq "$3" ]
	tap_ok $? "--trace=all: $1 called $3 times in $it $2 conversions (got ${got:-none})"
done
got=$(calls kvm_faultin_pfn_private to-private)
[ "${got:-0}" -ge $it ] && [ "${got:-0}" -le $((2 * it)) ]
tap_ok $? "--trace=all: kvm_faultin_pfn_private at least once per to-private conversion, at most twice (got ${got:-none})"
for f in kvm_gmem_fallocate kvm_gmem_get_pfn; do
	awk -F, -v p="$f" '$1 == p && ($2 == "fentry" || $2 == "kprobe") { f = 1 }
		END { exit !f }' "$tt" 2>/dev/null
	tap_ok $? "--trace=all: $f is attached"
done
# the default set: the counterparts of the three v5 functions
"$CB" --mode=gmem --size=4K --rounds=1 --iterations=$it --warmup=2 \
	--trace --out="$work/trace-default" >"$work/trace-default.txt" 2>&1
rc=$?
tt=$work/trace-default/trace-totals.csv
got=$(calls kvm_gmem_fallocate to-shared):$(calls kvm_gmem_invalidate_begin to-shared):$(calls kvm_vm_set_mem_attributes to-private)
[ $rc -eq 0 ] && [ "$got" = "$it:$it:$it" ] &&
	grep -q '"set": "default"' "$work/trace-default/summary.json"
tap_ok $? "--trace: the default set times kvm_gmem_fallocate, kvm_gmem_invalidate_begin, kvm_vm_set_mem_attributes ($rc, $got)"

finish
