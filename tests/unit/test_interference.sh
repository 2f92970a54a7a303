#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench leaves out a boot its host disturbed (under TCG a vCPU
# thread kept off a CPU stretches what the guest measures): run-vm.sh
# samples QEMU's vCPU threads (sched.log, vm.env's vcpu_wait_pct) and
# bench/vm/interference.sh marks a boot above the limit. Two short boots
# of the project's kernel whose guest spins for a few seconds: one as
# the host is, one with every host CPU taken by busy loops (twice as
# many as CPUs). The loaded boot's vCPU threads must wait for a CPU
# visibly more, and be marked; interference.sh's own verdicts are fed
# canned vm.env files too.
#
#   tests/unit/test_interference.sh
#
# Needs the project's kernel (make kernel): without it the boots are
# skipped. POSIX sh, TAP lines; the last line is "N passed, N failed[,
# N skipped]".
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d) || exit 1
hogs=
trap 'for p in $hogs; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
. tests/lib/tap.sh
IF=bench/vm/interference.sh

# --- the verdict on canned vm.env files
printf "vcpu_wait_pct=3.10\nvcpu_wait_worst_pct=9.00\n" > "$tmp/quiet.env"
printf "vcpu_wait_pct=42.50\nvcpu_wait_worst_pct=80.00\n" > "$tmp/loaded.env"
printf "vcpu_wait_pct='?'\n" > "$tmp/unknown.env"
[ -z "$(sh "$IF" "$tmp/quiet.env" 10)" ] &&
	sh "$IF" "$tmp/loaded.env" 10 | grep -q '^why=host interference: the vCPU threads waited for a CPU 42.50% of their runnable time (worst second 80.00%; limit 10%)' &&
	sh "$IF" "$tmp/loaded.env" 10 | grep -qx 'valid=0' &&
	[ -z "$(sh "$IF" "$tmp/loaded.env" 50)" ] &&
	[ -z "$(sh "$IF" "$tmp/unknown.env" 10)" ] &&
	[ -z "$(sh "$IF" "$tmp/none.env" 10)" ]
tap_ok $? "interference.sh: 42.5% against a limit of 10% marks the boot, 3.1% or a limit of 50% does not, an unknown share marks nothing"
sh "$IF" "$tmp/quiet.env" abc > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && grep -q "the limit expects a percentage, got 'abc'" "$tmp/err"
tap_ok $? "interference.sh: a limit that is not a percentage: exit 2, said"

# --- two boots, quiet and loaded
kdir=$(kernel/build.sh --print 2>/dev/null)
if [ -z "$kdir" ] || [ ! -f "$kdir/bzImage" ]; then
	tap_skip "a loaded host's boot is marked" "no kernel built (make kernel)"
	tap_finish
fi
spin='i=0; while [ $i -lt 250000 ]; do i=$((i+1)); done; echo spun'
boot() {	# NAME
	kernel/vm/run-vm.sh -q --kernel "$kdir/bzImage" --out "$tmp/$1" \
		--timeout 300 -- sh -c "$spin" > "$tmp/$1.out" 2>&1
}
wait_of() { sed -n "s/^vcpu_wait_pct=//p" "$tmp/$1/vm.env" | tr -d "'"; }
boot quiet
rc=$?
i=0
while [ $i -lt $(($(nproc) * 2)) ]; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	i=$((i + 1))
done
boot loaded
rc2=$?
for p in $hogs; do kill "$p" 2>/dev/null; done
hogs=
q=$(wait_of quiet) l=$(wait_of loaded)
echo "# vCPU threads waiting for a CPU: quiet host ${q:-?}%, loaded host ${l:-?}% ($(nproc) CPUs, $(($(nproc) * 2)) busy loops)"
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q spun "$tmp/loaded.out" &&
	[ "$(wc -l < "$tmp/loaded/sched.log")" -ge 3 ] &&
	awk -v q="$q" -v l="$l" 'BEGIN { exit !(l + 0 > q + 10 && l + 0 > 10) }'
tap_ok $? "the loaded boot's vCPU threads waited more than 10% and 10 points more than the quiet boot's (${q:-?}% -> ${l:-?}%)"
sh "$IF" "$tmp/loaded/vm.env" 10 > "$tmp/mark"
grep -qx 'valid=0' "$tmp/mark" && grep -q '^why=host interference' "$tmp/mark"
tap_ok $? "the loaded boot is marked to be left out ($(sed -n 's/^why=//p' "$tmp/mark"))"
tap_finish
