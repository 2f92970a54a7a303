#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convbench's documented failure paths that need no project kernel, on
# the build host, whose kernel lacks the private-memory series (--no-vm:
# here, not in the project's VM, tests/unit/test_convbench_vm.sh): exit 4
# naming the missing feature, with summary.json still written (which
# modes were unavailable, and why); bad options exit 2 naming the option
# and what it expects, before anything is written; --help exits 0.
#
#   tests/unit/test_convbench_host.sh CONVBENCH
#
# POSIX sh. TAP lines; the last line is "N passed, N failed[, N skipped]".

CB=${1:-build/bench/convbench}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

if [ ! -x "$CB" ]; then
	echo "# no convbench at $CB"
	tap_ok 1 "convbench is built"
	tap_finish
fi

# --- a kernel without the feature: exit 4, and still a summary
"$CB" --no-vm --mode=destructive,inplace --iterations=5 --out="$tmp/run" \
	> "$tmp/out" 2> "$tmp/err"
rc=$?
sed 's/^/# /' "$tmp/err"
missing='this kernel lacks the private-memory series|this kernel does not offer in-place|cannot open /dev/kvm'
if ! grep -qE "$missing" "$tmp/err" && grep -q '"mode": "destructive"' "$tmp/run/summary.json" 2>/dev/null; then
	# it measured: the host kernel has the series, nothing to test here
	n=$((n + 1)); skipped=$((skipped + 1))
	echo "ok $n - exit 4 without the series # SKIP this kernel has it (exit $rc)"
	tap_finish
fi
[ $rc -eq 4 ]
tap_ok $? "a kernel without the series: exit 4 ($rc)"
for m in destructive inplace; do
	grep -qE "^convbench: --mode=$m: ($missing)" "$tmp/err"
	tap_ok $? "--mode=$m: the message names the missing feature"
	grep -qE "\"$m\": \"(this kernel|cannot open)" "$tmp/run/summary.json" 2>/dev/null
	tap_ok $? "--mode=$m: summary.json lists it as unavailable, with why"
done
grep -q '"provenance"' "$tmp/run/summary.json" 2>/dev/null &&
	grep -q '"cells": \[\]' "$tmp/run/summary.json"
tap_ok $? "summary.json is written: provenance, no cells"
[ "$(cat "$tmp/run/samples.csv" 2>/dev/null | wc -l)" -eq 1 ] &&
	head -n 1 "$tmp/run/samples.csv" | grep -q '^round,mode,size,direction,'
tap_ok $? "samples.csv is written: the header, no samples"

# --- the third mode: this host has no software-protected VMs with
# guest_memfd either (it runs in the project's 6.12 kernel)
"$CB" --no-vm --mode=gmem --iterations=5 --out="$tmp/gmem" > /dev/null 2> "$tmp/err"
rc=$?
sed 's/^/# /' "$tmp/err"
if [ $rc -eq 0 ]; then
	n=$((n + 1)); skipped=$((skipped + 1))
	echo "ok $n - --mode=gmem exits 4 here # SKIP this kernel has software-protected VMs with guest_memfd"
else
	[ $rc -eq 4 ] && grep -q '^convbench: --mode=gmem: .*runs in the 6.12 kernel' "$tmp/err" &&
		grep -q '"gmem": "' "$tmp/gmem/summary.json" 2>/dev/null
	tap_ok $? "--mode=gmem: exit 4 naming the 6.12 kernel, summary.json says why ($rc)"
fi

# --- bad options: exit 2 naming the option, nothing written
bad() {	# bad OPTION-IN-MESSAGE ARGS...
	want=$1
	shift
	rm -rf "$tmp/bad"
	"$CB" "$@" --out="$tmp/bad" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$want" "$tmp/err" && [ ! -e "$tmp/bad" ]
	tap_ok $? "$* exits 2 naming $want, writes nothing ($rc: $(head -n 1 "$tmp/err"))"
}
bad "--size" --size=3K
bad "--mode" --mode=fast
bad "destructive, inplace or gmem" --mode=gmem,
bad "--iterations" --iterations=0
bad "--duration" --duration=-1
bad "--vcpus" --vcpus=33
bad "--stall-timeout" --stall-timeout=0
bad "--max-exits" --max-exits=x
bad "--inject" --inject=explode@3
bad "--inject=corrupt needs --no-preserve" --inject=corrupt@6:8
bad "exclude each other" --iterations=5 --duration=1
bad "unknown option" --frobnicate
bad "--rounds" --rounds=0
bad "--trace" --trace=some
bad "exclude each other" --counts --trace
bad "--vm-cpus" --vm-cpus=0
bad "--vm-mem" --vm-mem=12
bad "--vm-timeout" --vm-timeout=x

# --- make bench's clock mark: a group of lines the host stamps
"$CB" --clock-mark=start > "$tmp/clock" 2> "$tmp/err"
rc=$?
lines=$(grep -cE '^CONVBENCH-CLOCK start tsc=[0-9]+ raw_ns=[0-9]+ tsc_khz=[0-9]+ clocksource=[a-z_-]+ tsc_early_khz=[0-9]+ tsc_unstable=[01]$' "$tmp/clock")
if [ $rc -eq 0 ]; then
	[ "$lines" -eq 5 ] && ! grep -q 'tsc_khz=0 ' "$tmp/clock"
	tap_ok $? "--clock-mark: 5 CONVBENCH-CLOCK lines with TSC, clocks and KVM's TSC rate ($lines)"
else
	[ $rc -eq 1 ] && grep -q 'KVM_GET_TSC_KHZ' "$tmp/err"
	tap_ok $? "--clock-mark without KVM: exit 1 naming KVM_GET_TSC_KHZ ($rc)"
fi

"$CB" --help > "$tmp/help" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q -- '--inject=WHAT@K' "$tmp/help" &&
	grep -q -- '--debug' "$tmp/help" && grep -q '128+N' "$tmp/help"
tap_ok $? "--help exits 0 and documents --debug, --inject and exit 128+N ($rc)"

tap_finish
