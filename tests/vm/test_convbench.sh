#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convbench end to end inside the project's kernel: both modes, both
# triggers and both content semantics (--preserve: the guest finds its
# old data after every conversion; --no-preserve: it finds zeroes), at
# 4K, 64K and 2M; small counts. Every conversion must be verified, the
# histograms non-empty, the files of --out complete, and every
# samples.csv must satisfy the timing invariants (samples_check, the
# code of convbench --debug, which some cells also run).
# busybox sh; TAP lines and a closing "N passed, N failed" line.

cd "$(dirname "$0")" || exit 1
CB=./convbench
CHECK=./samples_check
. ./emu_retry.sh
. ./tap.sh
work=${TMPDIR:-/tmp}/test_convbench.$$
mkdir -p "$work"

if ! "$CB" --help >/dev/null 2>&1; then
	tap_skip convbench "convbench not built"
	tap_finish
fi

# every samples.csv a test makes: the timing invariants hold
check_samples() {	# check_samples CSV NAME
	"$CHECK" "$1" >"$work/check.txt" 2>&1
	tap_ok $? "$2: samples.csv satisfies the timing invariants"
	sed 's/^/# /' "$work/check.txt" | tail -n 6
}

# SIZE TRIGGER ITERATIONS MODE CONTENT [OPTION...]
# CONTENT is preserve or no-preserve: what the guest checks after every
# conversion is its old data or zeroes
run_cell() {
	size=$1 trig=$2 iters=$3 mode=$4 content=$5
	shift 5
	name="$mode $size $trig $content${1:+ $*}"
	out=$work/$mode-$size-$trig-$content
	"$CB" --mode="$mode" --size="$size" --trigger="$trig" --"$content" \
		--rounds=1 --iterations="$iters" --warmup=2 --stall-timeout=20 \
		--out="$out" "$@" >"$out.txt" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && [ "${CONVBENCH_REQUIRE_SERIES:-0}" != 1 ]; then
		tap_skip "$name" "$(tail -n 1 "$out.txt")"
		return
	fi
	tap_ok $rc "$name: convbench exits 0 (got $rc)"
	[ $rc -eq 0 ] || sed 's/^/# /' "$out.txt" | tail -n 20
	for dir in to-shared to-private; do
		grep -q "^$mode $size $dir ($trig, $content, 1 vCPU): $iters conversions, all verified" "$out.txt"
		tap_ok $? "$name $dir: $iters conversions, all verified"
	done
	rows=$(grep -c -- ' -> ' "$out.txt")
	[ "$rows" -ge 2 ]
	tap_ok $? "$name: histogram rows printed ($rows)"
	lines=$(wc -l <"$out/samples.csv" 2>/dev/null || echo 0)
	[ "$lines" -eq $((2 * iters + 1)) ]
	tap_ok $? "$name: samples.csv has $((2 * iters)) samples ($((lines - 1)))"
	want=1
	[ "$content" = preserve ] || want=0
	other=$(awk -F, -v w=$want 'NR > 1 && $6 != w' "$out/samples.csv" 2>/dev/null | wc -l)
	grep -q "\"preserve\": $([ $want = 1 ] && echo true || echo false)" "$out/summary.json" 2>/dev/null &&
		[ "$other" -eq 0 ]
	tap_ok $? "$name: samples.csv and summary.json record $content"
	grep -q '"all_verified": true' "$out/summary.json" 2>/dev/null &&
		! grep -q '"all_verified": false' "$out/summary.json"
	tap_ok $? "$name: summary.json says all verified"
	[ -s "$out/hist.csv" ] && [ -s "$out/histograms.txt" ]
	tap_ok $? "$name: hist.csv and histograms.txt written"
	check_samples "$out/samples.csv" "$name"
	# the VM's calibration, in either trigger: 32 null exits, 32 faults
	grep -q '^fixed costs of this VM (ns, median): null exit [1-9][0-9]* (n 32), NPT fault [1-9][0-9]* (n 32)$' "$out.txt"
	tap_ok $? "$name: the VM timed 32 null exits and 32 NPT faults"
}

# old data kept (--preserve)
run_cell 4K explicit 100 destructive preserve
run_cell 2M explicit 10 destructive preserve
run_cell 4K implicit 100 destructive preserve
run_cell 2M implicit 5 destructive preserve
run_cell 4K explicit 100 inplace preserve
run_cell 2M explicit 5 inplace preserve
run_cell 64K implicit 20 inplace preserve
# zeroes seen (--no-preserve); convbench checks its own timings too
run_cell 4K explicit 50 destructive no-preserve --debug
run_cell 2M implicit 5 destructive no-preserve --debug
run_cell 64K explicit 20 inplace no-preserve --debug
run_cell 4K implicit 50 inplace no-preserve --debug
run_cell 2M implicit 3 inplace no-preserve --debug

# both modes in one run: the ratio table, over 3 rounds
"$CB" --mode=destructive,inplace --size=64K --iterations=15 --rounds=3 \
	--out="$work/both" >"$work/both.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^inplace/destructive over rounds" "$work/both.txt" &&
	grep -qE "^  64K  to-shared  p50 [0-9.]+ \([0-9.]+\.\.[0-9.]+, joint [0-9.]+\.\.[0-9.]+\)  rounds [0-9.]+ [0-9.]+ [0-9.]+$" "$work/both.txt"
tap_ok $? "both modes over 3 rounds: the ratio, its CI over rounds, the joint CI and each round's ratio (got $rc)"
[ $rc -eq 0 ] || grep -E 'convbench:|FAILED' "$work/both.txt" | sed 's/^/# /' | head -n 10
[ "$(grep -c ' conversions, all verified (round [0-2])$' "$work/both.txt")" -eq 12 ]
tap_ok $? "both modes over 3 rounds: 2 modes x 2 directions x 3 rounds reported"
check_samples "$work/both/samples.csv" "both modes, 3 rounds"
cb_run_smp "$work/both2.txt" "$work/both2" --mode=destructive,inplace \
	--size=64K --iterations=30 --vcpus=2 --rounds=1
rc=$?
tap_ok $rc "both modes, 2 vCPUs: exit 0 (got $rc)"
[ $rc -eq 0 ] || grep -E 'convbench:|FAILED' "$work/both2.txt" | sed 's/^/# /' | head -n 10
check_samples "$work/both2/samples.csv" "both modes, 2 vCPUs"
# each cell's VM-wide counts: every conversion asks KVM for a remote TLB
# flush (the zap of its range); the IPIs are counted, however many
awk '/"vm_counts": \{/ { n++ }
	/"tlb_flush_requests_per_conversion":/ { v = $2 + 0; if (v >= 1) ok++ }
	/"ipis_per_conversion": [0-9]/ { ipi++ }
	END { exit !(n == 4 && ok == 4 && ipi == 4) }' "$work/both2/summary.json"
tap_ok $? "both modes, 2 vCPUs: every cell's vm_counts, a TLB flush request or more per conversion, IPIs counted"
grep -A3 '"vm_counts": {' "$work/both2/summary.json" | grep per_conversion | sed 's/^ */# /' | head -n 4
# one vCPU converting while two only run: they must be flushed (IPIs)
cb_run_smp "$work/busy.txt" "$work/busy" --mode=inplace --size=2M \
	--iterations=10 --vcpus=1 --busy-vcpus=2 --rounds=1
rc=$?
[ $rc -eq 0 ] && grep -q '"busy_vcpus": 2,' "$work/busy/summary.json" &&
	[ "$(grep -c ' conversions, all verified (round 0)$' "$work/busy.txt")" -eq 2 ] &&
	awk '/"ipis_per_conversion":/ { if ($2 + 0 > 0) ok++ } END { exit !(ok == 2) }' "$work/busy/summary.json"
tap_ok $? "--busy-vcpus=2: every conversion verified, the busy vCPUs stopped after, IPIs counted (got $rc)"
[ $rc -eq 0 ] || grep -E 'convbench:|FAILED' "$work/busy.txt" | sed 's/^/# /' | head -n 10

# --- rounds: the order is the recorded seed's, sizes shuffled, modes ABBA
order() {	# order DIR: each round's order, one line each
	sed -n 's/^ *"order": "\(.*\)",$/\1/p' "$1/summary.json" | grep -v '^per round'
}
for o in o1 o2; do
	"$CB" --mode=destructive,inplace --size=4K,8K,12K --iterations=2 \
		--warmup=1 --rounds=2 --order-seed=42 --out="$work/$o" \
		>"$work/$o.txt" 2>&1
done
order "$work/o1" >"$work/o1.order"
order "$work/o2" >"$work/o2.order"
sed 's/^/# seed 42: /' "$work/o1.order"
[ "$(wc -l <"$work/o1.order")" -eq 2 ] && cmp -s "$work/o1.order" "$work/o2.order"
tap_ok $? "the same --order-seed runs the cells in the same order"
grep -q '"order_seed": 42,' "$work/o1/summary.json"
tap_ok $? "summary.json records the order seed"
[ "$(sed -n 1p "$work/o1.order")" != "$(sed -n 2p "$work/o1.order")" ]
tap_ok $? "the two rounds run the sizes in different orders (seed 42)"
# every size's two modes back to back, the first alternating across the run
tr ',' '\n' <"$work/o1.order" | sed 's/^ *//' | awk '
	{ size[NR] = $1; mode[NR] = $2 }
	END {
		for (i = 1; i < NR; i += 2) {
			if (size[i] != size[i + 1] || mode[i] == mode[i + 1]) exit 1
			first = mode[i] == "destructive"
			if (i > 1 && first == prev) exit 1
			prev = first
		}
		exit NR != 12
	}'
tap_ok $? "per size the two modes run back to back, which first alternates (ABBA)"
[ "$(tr ',' '\n' <"$work/o1.order" | head -n 6 | sort | uniq | wc -l)" -eq 6 ]
tap_ok $? "each round runs every (mode, size) once"

# --- work counts: exact within a run and across runs
for c in c1 c2; do
	"$CB" --mode=destructive,inplace --size=4K,64K --iterations=10 \
		--rounds=1 --counts --out="$work/$c" >"$work/$c.txt" 2>&1
	rc=$?
done
grep -A 10 '^work per conversion' "$work/c1.txt" | sed 's/^/# /'
# IPIs depend on what else runs on the other CPU, and the debug kernel
# adds a TLB flush request now and then: not compared (shown above)
grep '^  [a-z]' "$work/c1.txt" | grep ' exits ' | sed 's/ tlb_flush_requests .*//' | sort >"$work/c1.work"
grep '^  [a-z]' "$work/c2.txt" | grep ' exits ' | sed 's/ tlb_flush_requests .*//' | sort >"$work/c2.work"
[ $rc -eq 0 ] && [ "$(wc -l <"$work/c1.work")" -eq 8 ] && cmp -s "$work/c1.work" "$work/c2.work"
tap_ok $? "--counts: two runs count the same work per conversion (but TLB flush requests and IPIs)"
! grep -q '\[' "$work/c1.work"
tap_ok $? "--counts: every conversion of a cell counts the same"
# every conversion zaps its range and asks for one remote TLB flush (the
# debug kernel may add one now and then: at least one, and counted)
low=$(grep '^  [a-z]' "$work/c1.txt" | grep ' exits ' |
	awk '{ for (i = 1; i < NF; i++) if ($i == "tlb_flush_requests") v = $(i + 1)
	       if (v == "-" || v + 0 < 1) n++ } END { print n + 0 }')
[ $rc -eq 0 ] && [ "$low" -eq 0 ]
tap_ok $? "--counts: at least one TLB flush request per conversion in every cell ($low below)"
grep -q '^  destructive 4K   to-shared  exits 2 npt_faults 1 npt_fixed 1 spte_4k 1 spte_2m 0 host_faults 1 pages_allocated 1 pages_freed 1 pages_zeroed 1 bytes_copied 8192$' "$work/c1.work" &&
	grep -q '^  inplace     64K  to-private exits 17 npt_faults 16 npt_fixed 16 spte_4k 16 spte_2m 0 host_faults 0 pages_allocated 0 pages_freed 0 pages_zeroed 0 bytes_copied 0$' "$work/c1.work"
tap_ok $? "--counts: destructive allocates, frees, zeroes and copies a page per 4K; in place none"
# the fixed cost of a conversion: its one exit at the VM's null exit, its
# NPT faults (1 per 4K page here) at the VM's fault; one VM per cell
bad=$(awk '
	/^(destructive|inplace) (4K|64K) to-/ { cell = $1 " " $2 }
	/^fixed costs of this VM/ { e[cell] = $10; f[cell] = $15 }
	/^  (destructive|inplace) +(4K|64K) +to-.* n .* fixed / {
		k = $1 " " $2; npf = $2 == "4K" ? 1 : 16
		want = e[k] + npf * f[k]; got = $NF; n++
		if (!(k in e) || got - want > 1 + npf || want - got > 1 + npf) {
			print "# " k " " $3 ": fixed " got ", expected " want > "/dev/stderr"; b++
		}
	}
	END { print n == 8 ? b + 0 : "missing " n }' "$work/c1.txt")
[ "$bad" = 0 ]
tap_ok $? "--counts: a conversion's fixed cost is its exit at the null exit and its faults at the NPT fault ($bad)"
grep -q '^ *p50 less fixed costs [0-9.]* ' "$work/c1.txt"
tap_ok $? "--counts: the ratios less the fixed costs printed"
# 2M: one folio of 512 pages allocated, freed and zeroed once each, 2 x
# 2 MiB copied, one 2M mapping (a page counted twice shows as 1024)
"$CB" --mode=destructive,inplace --size=2M --iterations=5 --rounds=1 \
	--counts >"$work/c2m.txt" 2>&1
grep -q '^  destructive 2M   to-shared  exits 2 npt_faults 1 npt_fixed 1 spte_4k 0 spte_2m 1 host_faults 1 pages_allocated 512 pages_freed 512 pages_zeroed 512 bytes_copied 4.1943e+06 ' "$work/c2m.txt" &&
	grep -q '^  destructive 2M   to-private exits 2 npt_faults 1 npt_fixed 1 spte_4k 0 spte_2m 1 host_faults 0 pages_allocated 512 pages_freed 512 pages_zeroed 512 bytes_copied 4.1943e+06 ' "$work/c2m.txt" &&
	grep -q '^  inplace     2M   to-shared  exits 2 npt_faults 1 npt_fixed 1 spte_4k 0 spte_2m 1 host_faults 0 pages_allocated 0 pages_freed 0 pages_zeroed 0 bytes_copied 0 ' "$work/c2m.txt"
tap_ok $? "--counts: a 2M conversion allocates, frees and zeroes 512 pages once each in destructive, none in place"
"$CB" --mode=destructive --size=4K --iterations=10 --rounds=1 --counts \
	--no-preserve >"$work/np.txt" 2>&1
grep -q '^  destructive 4K   to-shared  exits 2 npt_faults 1 ' "$work/np.txt"
tap_ok $? "--no-preserve: the guest's touch writes, one NPT fault per page (no zero page)"

# --- traces: contexts per cell and phase, tidy files
"$CB" --mode=destructive,inplace --size=4K --iterations=10 --rounds=2 \
	--trace --out="$work/tr" >"$work/tr.txt" 2>&1
rc=$?
t=$work/tr/trace-totals.csv
[ $rc -eq 0 ] && [ -s "$t" ] && [ -s "$work/tr/trace.csv" ]
tap_ok $? "--trace: trace.csv and trace-totals.csv written ($rc)"
! awk -F, '$1 == "shmem_fallocate" && $3 == "inplace" && ($5 == "to-shared" || $5 == "to-private")' "$t" | grep -q .
tap_ok $? "--trace: no shmem_fallocate in in-place conversions (contexts end with their cell)"
awk -F, '$1 == "shmem_fallocate" && $3 == "inplace" && $5 == "setup"' "$t" | grep -q . &&
	awk -F, '$1 == "shmem_convert_range" && $3 == "inplace" && $5 == "to-shared" && $6 == 20 && $9 == 20' "$t" | grep -q .
tap_ok $? "--trace: the in-place cell's fallocate is its setup's; shmem_convert_range once per conversion (20 over 2 rounds)"
! awk -F, 'NR > 1 && $8 > $7' "$t" | grep -q .
tap_ok $? "--trace: exclusive time never exceeds inclusive"
head -n 1 "$work/tr/trace.csv" | grep -qx 'probe,mode,size,phase,low_ns,high_ns,count' &&
	! grep -q '^#' "$work/tr/trace.csv" &&
	[ "$(awk -F, 'NR > 1 && NF != 7' "$work/tr/trace.csv" | wc -l)" -eq 0 ]
tap_ok $? "trace.csv: one row per bucket, no comment rows"
grep -q '"set": "default"' "$work/tr/summary.json" &&
	[ "$(grep -c '"attach": "fentry"' "$work/tr/summary.json")" -eq 4 ]
tap_ok $? "--trace: the default set, four functions with fentry"
"$CB" --mode=inplace --size=4K --iterations=5 --rounds=1 --trace=all \
	--out="$work/tra" >"$work/tra.txt" 2>&1
grep -q '"set": "all"' "$work/tra/summary.json" &&
	grep -q '^kvm:kvm_exit,' "$work/tra/trace-totals.csv" &&
	grep -q '^shmem_check_unused,' "$work/tra/trace-totals.csv"
tap_ok $? "--trace=all: the wide set and the tracepoint rows"
# the attach mechanism alone: the same four fentry probes, every
# program returning at once, so no histogram has a bucket
"$CB" --mode=inplace --size=4K --iterations=5 --rounds=1 --trace=empty \
	--out="$work/tre" >"$work/tre.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '"set": "empty"' "$work/tre/summary.json" &&
	[ "$(grep -c '"attach": "fentry"' "$work/tre/summary.json")" -eq 4 ] &&
	[ "$(wc -l < "$work/tre/trace.csv")" -eq 1 ] &&
	grep -q '"all_verified": true' "$work/tre/summary.json"
tap_ok $? "--trace=empty: the four fentry probes attached, no bucket counted, data verified ($rc)"

"$CB" --size=3K >/dev/null 2>"$work/bad.txt"
rc=$?
[ $rc -eq 2 ] && grep -q -- '--size' "$work/bad.txt"
tap_ok $? "a bad --size exits 2 naming the option (got $rc)"

mkdir -p "$work/used" && touch "$work/used/keep"
"$CB" --iterations=1 --out="$work/used" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && [ -f "$work/used/keep" ] && [ ! -f "$work/used/summary.json" ]
tap_ok $? "--out to a non-empty folder is refused, nothing overwritten (got $rc)"

rm -rf "$work"
tap_finish
