#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ./convbench typed on the host, whose kernel lacks the series: it runs
# itself in the project's kernel (bench/vm/run-in-vm.sh). Three short
# boots: a run with --trace (0.6 s per cell, progress drawn as on a
# terminal) whose --out has a space and '=' in its name comes back whole
# and exits 0; an injected failure's exit status 1 and its message come
# back; a SIGINT stops convbench in the guest, whose conversions come
# back (exit 130); --mode=gmem runs in the 6.12 kernel (a fourth boot,
# when that kernel is built), and with a v5 mode is refused. Without a VM: --no-vm exits 4 here, and a missing
# kernel exits 4 naming the command that builds it, booting nothing.
#
#   tests/unit/test_convbench_vm.sh CONVBENCH
#
# Needs the project's kernel (make kernel): without it every test but
# the missing-kernel one is skipped. POSIX sh, TAP lines; the last line
# is "N passed, N failed[, N skipped]".

CB=${1:-./convbench}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

show() { sed 's/^/# /' "$@"; }

if [ ! -x "$CB" ]; then
	tap_ok 1 "convbench is built ($CB)"
	tap_finish
fi

# --- --no-vm: this kernel, exit 4, no VM
"$CB" --no-vm --iterations=5 > "$tmp/out" 2> "$tmp/err"
rc=$?
# a host without /dev/kvm lacks the series as much as a kernel without it
if grep -q 'lacks the private-memory series\|cannot open /dev/kvm' "$tmp/err"; then
	[ $rc -eq 4 ] && ! grep -q "running in the project's kernel" "$tmp/err"
	tap_ok $? "--no-vm: exit 4 on this kernel, no VM ($rc)"
else
	why="this kernel has the series: nothing to re-run ($rc)"
	tap_skip "--no-vm" "$why"
	tap_skip "a missing kernel" "$why"
	tap_skip "a run in the VM" "$why"
	tap_skip "an exit status from the VM" "$why"
	tap_skip "SIGINT" "$why"
	tap_skip "--mode=destructive,gmem" "$why"
	tap_skip "--mode=gmem in the 6.12 kernel" "$why"
	tap_finish
fi

# --- no kernel built: exit 4 at once, naming the command that builds it
mkdir "$tmp/cache"
start=$(date +%s)
CONVBENCH_CACHE=$tmp/cache "$CB" --iterations=5 --out="$tmp/nokernel" \
	> "$tmp/out" 2> "$tmp/err"
rc=$?
show "$tmp/err"
[ $rc -eq 4 ] && grep -q "'make kernel'" "$tmp/err" &&
	[ $(( $(date +%s) - start )) -lt 30 ] &&
	[ -z "$(ls "$tmp/cache")" ] && [ -z "$(ls -A "$tmp/nokernel" 2>/dev/null)" ]
tap_ok $? "no kernel: exit 4 naming 'make kernel', nothing built or written ($rc)"

if ! kernel/build.sh --print > /dev/null 2>&1; then
	why="no project kernel (make kernel)"
	tap_skip "a run in the VM" "$why"
	tap_skip "an exit status from the VM" "$why"
	tap_skip "SIGINT" "$why"
	tap_skip "--mode=destructive,gmem" "$why"
	tap_skip "--mode=gmem in the 6.12 kernel" "$why"
	tap_finish
fi

# --- a run in the VM: arguments, stdout, stderr, --out, status 0
out="$tmp/run dir=1"
CONVBENCH_PROGRESS="tty" "$CB" --mode=destructive,inplace --size 4K --duration=0.6 --rounds=1 \
	--order-seed=77 --trace --out "$out" > "$tmp/out" 2> "$tmp/err"
rc=$?
tr '\r' '\n' < "$tmp/err" | grep -v '^.\[K' | show
[ $rc -eq 0 ]
tap_ok $? "a run in the VM exits 0 ($rc)"
grep -qE "running in the project's kernel [^ ]+ under QEMU \((kvm|tcg), [0-9]+ CPUs, [0-9]+ MB\)" "$tmp/err"
tap_ok $? "one line says so: kernel, accelerator, CPUs, memory"
grep -q '^convbench: 1 round, order seed 77$' "$tmp/out" &&
	grep -q '^inplace/destructive over rounds' "$tmp/out"
tap_ok $? "stdout carries convbench's results, arguments as given"
# tty progress: each drawing starts with CR and erase-line, and the last
# one is erased before the results go on
tr '\r' '\n' < "$tmp/err" | awk -v e="$(printf '\033[K')" '
	index($0, e "convbench: cell ") == 1 { last = NR; n++ }
	index($0, e "convbench: cell 1 of 2 (round 0, ") == 1 &&
		$0 ~ /4K\): [0-9]+ conversions, [0-9]+\/s, ~[0-9]+s left$/ { first = 1 }
	index($0, e "convbench: cell 2 of 2 ") == 1 { four = 1 }
	{ line[NR] = $0 }
	END { exit !(first && four && line[last + 1] == e) }'
tap_ok $? "progress on stderr from the VM: cell k of N, conversions, rate, time left"
for f in summary.json samples.csv hist.csv histograms.txt trace.csv; do
	[ -s "$out/$f" ] || { echo "# missing: $out/$f"; false; }
done && [ -z "$(find "$out" -name '.*' ! -path "$out")" ]
tap_ok $? "--out comes back whole (summary, samples, histograms, trace), no temporary files"
grep -q '"--order-seed=77"' "$out/summary.json" &&
	grep -q '"--no-vm"' "$out/summary.json" &&
	grep -qE '"(accel|qemu)"' "$out/summary.json"
tap_ok $? "summary.json records the run in the VM (arguments, accelerator)"

# --- convbench's own exit status and stderr come back
"$CB" --mode=destructive --iterations=5 --rounds=1 --inject=fail@3 \
	> "$tmp/out" 2> "$tmp/err"
rc=$?
show "$tmp/err"
[ $rc -eq 1 ] && grep -q 'conversion 3: .*injected failure' "$tmp/err"
tap_ok $? "a failing run: exit 1 and its message on stderr ($rc)"

# --- SIGINT reaches convbench in the guest, which keeps what it measured
CONVBENCH_PROGRESS="tty" "$CB" --mode=destructive --size=2M --duration=60 \
	--rounds=1 --out="$tmp/int" > "$tmp/out" 2> "$tmp/err" &
pid=$!
i=0
while [ $i -lt 120 ] && ! grep -q 'convbench: cell 1 of 1 .*[1-9][0-9]* conversions' "$tmp/err"; do
	sleep 0.5
	i=$((i + 1))
done
start=$(date +%s)
kill -INT $pid
wait $pid
rc=$?
tr '\r' '\n' < "$tmp/err" | grep -v '^.\[K' | show
[ $rc -eq 130 ] && [ $(( $(date +%s) - start )) -lt 30 ] &&
	grep -q '"interrupted": true' "$tmp/int/summary.json" 2>/dev/null &&
	[ "$(wc -l < "$tmp/int/samples.csv")" -gt 1 ]
tap_ok $? "SIGINT: convbench in the VM stops, its conversions come back, exit 130 ($rc)"

# --- gmem runs in the other kernel (6.12): one VM cannot run both
"$CB" --mode=destructive,gmem --iterations=5 > "$tmp/out" 2> "$tmp/err"
rc=$?
show "$tmp/err"
[ $rc -eq 2 ] && grep -q '^convbench: --mode: .*6.1 kernel, gmem in the 6.12 one' "$tmp/err"
tap_ok $? "--mode=destructive,gmem: exit 2, each kernel named, no VM ($rc)"
if FLAVOUR=gmem kernel/build.sh --print > /dev/null 2>&1; then
	"$CB" --mode=gmem --iterations=5 --rounds=1 --out="$tmp/gmem" \
		> "$tmp/out" 2> "$tmp/err"
	rc=$?
	show "$tmp/err"
	[ $rc -eq 0 ] && grep -q "running in the project's gmem kernel 6\.12" "$tmp/err" &&
		grep -q '^  gmem  *4K   to-shared  n 5 in 1 round' "$tmp/out" &&
		[ -s "$tmp/gmem/summary.json" ]
	tap_ok $? "--mode=gmem runs in the 6.12 kernel, --out comes back ($rc)"
else
	why="no gmem kernel (make kernel-gmem)"
	tap_skip "--mode=gmem in the 6.12 kernel" "$why"
fi

tap_finish
