#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convbench --workload=churn inside the project's kernel: both v5 modes
# churn a 16M range (400 operations, a mark every 50). Every operation
# verified, the three files complete, the time series consistent with
# KVM's counts, the range whole and 2M-mapped at the start, the in-place
# variant's splits never merged back (coverage falls, splits counted),
# and a sequence that replays from its seed (and another seed that does
# not); split events with their work; an accept sweep's work per MiB.
# busybox sh; TAP lines and a closing "N passed, N failed" line.

cd "$(dirname "$0")" || exit 1
CB=./convbench
. ./emu_retry.sh
. ./tap.sh
work=${TMPDIR:-/tmp}/test_churn.$$
mkdir -p "$work"
OPS=400 EVERY=50 RANGE=16M RANGE_PAGES=4096

if ! "$CB" --help >/dev/null 2>&1; then
	tap_skip churn "convbench not built"
	tap_finish
fi

churn() {	# churn NAME [OPTION...]
	name=$1
	shift
	"$CB" --workload=churn --mode=destructive,inplace --rounds=1 \
		--churn-range=$RANGE --churn-ops=$OPS --churn-interval=$EVERY \
		--stall-timeout=30 --out="$work/$name" "$@" >"$work/$name.txt" 2>&1
}

churn a --seed=7
rc=$?
if [ $rc -eq 4 ] && [ "${CONVBENCH_REQUIRE_SERIES:-0}" != 1 ]; then
	tap_skip churn "$(tail -n 1 "$work/a.txt")"
	tap_finish
fi
tap_ok $rc "churn of both modes exits 0 (got $rc)"
[ $rc -eq 0 ] || sed 's/^/# /' "$work/a.txt" | tail -n 20
sed 's/^/# /' "$work/a.txt" | head -n 14

for f in churn.csv churn-ops.csv churn.json; do
	[ -s "$work/a/$f" ]
	tap_ok $? "--out has $f"
done

for m in destructive inplace; do
	# every operation recorded (each was verified by the guest)
	cnt=$(grep -c "^$m," "$work/a/churn-ops.csv")
	[ "$cnt" -eq $OPS ]
	tap_ok $? "$m: $OPS operations in churn-ops.csv ($cnt)"
	# marks: one after the fill, one before every EVERY-th operation,
	# before operations 1, 2, 4 ... below EVERY, one after the last
	want="0 1 2 4 8 16 32 50 100 150 200 250 300 350 400 "
	ops=$(awk -F, -v m=$m '$1 == m { printf "%s ", $5 }' "$work/a/churn.csv")
	[ "$ops" = "$want" ]
	tap_ok $? "$m: marks in churn.csv at operations $want(got: $ops)"
	# coverage is KVM's 2M entries over the baseline, times 512 pages,
	# over the range's pages, at every mark
	awk -F, -v m=$m -v pages=$RANGE_PAGES 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == m { want = $col["pages_2m"] * 512 / pages
			if ($col["coverage_2m"] < want - 1e-6 || $col["coverage_2m"] > want + 1e-6) bad++ }
		END { exit bad > 0 }' "$work/a/churn.csv"
	tap_ok $? "$m: coverage_2m = pages_2m x 512 / range pages at every mark"
	# the range starts whole: all of it 2M-mapped after the fill
	awk -F, -v m=$m 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == m && $col["mark"] == 1 { c = $col["coverage_2m"] }
		END { exit !(c >= 0.99) }' "$work/a/churn.csv"
	tap_ok $? "$m: the range 2M-mapped after the fill ($(awk -F, -v m=$m '$1 == m && $4 == 1 { print $7 }' "$work/a/churn.csv"))"
	# every 4K-class operation of the sequence converted at least one page
	awk -F, -v m=$m '$1 == m && $6 != "" && $8 + 0 < 1 { bad++ } END { exit bad > 0 }' \
		"$work/a/churn-ops.csv"
	tap_ok $? "$m: every operation converted pages"
done

# in place, a partial conversion splits a 2M folio for good (no merge
# back): the range ends less 2M-mapped than it started, splits counted
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$1 == "inplace" { if ($col["mark"] == 1) s = $col["coverage_2m"]; e = $col["coverage_2m"]; sp = $col["thp_split"] }
	END { exit !(e < s && sp > 0) }' "$work/a/churn.csv"
tap_ok $? "inplace: 2M coverage falls and THP splits are counted ($(awk -F, '$1 == "inplace" { l = $7 " after " $12 " splits" } END { print l }' "$work/a/churn.csv"))"

grep -q '"coverage_2m_steady"' "$work/a/churn.json" &&
	grep -q '"thp_splits_per_1000"' "$work/a/churn.json"
tap_ok $? "churn.json has the steady state and the splits per 1000 conversions"

# the same seed replays the same operations; another seed does not
seq_of() {	# mode, op, size, direction, offset, converted pages
	cut -d, -f1,4,5,6,7,8 "$1"
}
churn b --seed=7
rc=$?
seq_of "$work/a/churn-ops.csv" >"$work/a.seq"
seq_of "$work/b/churn-ops.csv" >"$work/b.seq" 2>/dev/null
[ $rc -eq 0 ] && cmp -s "$work/a.seq" "$work/b.seq"
tap_ok $? "the same seed replays the same $OPS operations in each mode"
churn c --seed=8
seq_of "$work/c/churn-ops.csv" >"$work/c.seq" 2>/dev/null
[ -s "$work/c.seq" ] && ! cmp -s "$work/a.seq" "$work/c.seq"
tap_ok $? "another seed gives another sequence"
# the modes of one run convert the same sequence
grep '^destructive,' "$work/a.seq" | cut -d, -f2- >"$work/a.de"
grep '^inplace,' "$work/a.seq" | cut -d, -f2- >"$work/a.in"
[ -s "$work/a.de" ] && cmp -s "$work/a.de" "$work/a.in"
tap_ok $? "destructive and inplace run the same sequence"

# two vCPUs, each its own range: the start is read once every range is
# written and before any conversion (they wait for each other there)
cb_run_smp "$work/v2.txt" "$work/v2" --workload=churn --mode=inplace \
	--vcpus=2 --rounds=1 --churn-range=8M --churn-ops=100 --churn-interval=50 \
	--stall-timeout=30
rc=$?
[ "$emu_retries" = 0 ] || echo "# two vCPUs: run again after the emulator's triple fault"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["mark"] == 1 { n++; if ($col["coverage_2m"] == 1) whole++ }
	END { exit !(n == 2 && whole == 2) }' "$work/v2/churn.csv" 2>/dev/null &&
	[ "$(grep -c '^inplace,0,0,' "$work/v2/churn-ops.csv")" = 100 ] &&
	[ "$(grep -c '^inplace,0,1,' "$work/v2/churn-ops.csv")" = 100 ]
r=$?
tap_ok $r "two vCPUs ($rc): 100 operations each, both start marks see both ranges whole at 2M"
[ $r -eq 0 ] || { tail -n 15 "$work/v2.txt"; grep '^inplace,0,[01],1,' "$work/v2/churn.csv"; } 2>/dev/null | sed 's/^/# /'

# --- split and merge as events (--workload=split): 20 events a mode
"$CB" --workload=split --mode=destructive,inplace --rounds=1 --churn-ops=40 \
	--stall-timeout=30 --out="$work/ev" >"$work/ev.txt" 2>&1
rc=$?
tap_ok $rc "--workload=split of both modes exits 0 (got $rc)"
sed 's/^/# /' "$work/ev.txt" | grep -v '^# convbench: churn' | head -n 6
ev=$work/ev/events.csv
for m in destructive inplace; do
	cnt=$(grep -c "^$m,0,[0-9]*,split," "$ev" 2>/dev/null)
	cnu=$(grep -c "^$m,0,[0-9]*,uniform," "$ev" 2>/dev/null)
	[ "$cnt" = 20 ] && [ "$cnu" = 20 ]
	tap_ok $? "$m: 20 split and 20 uniform events in events.csv ($cnt, $cnu)"
	# a split after the range was made whole: the 2M entry goes, the
	# folio is split once, the 4K piece's fault maps 4K entries
	awk -F, -v m=$m 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == m && $4 == "split" { n++
			if ($col["whole_before"] == 1 && $col["pages_2m_delta"] == -1 &&
			    $col["thp_splits"] >= 1 && $col["pages_4k_delta"] >= 1) good++ }
		END { exit !(n > 0 && good >= n * 0.9) }' "$ev"
	tap_ok $? "$m: a split event after a whole 2M range zaps the 2M entry and splits the folio (>= 90% of $cnt)"
	# the split's deferred work: the rest of the 2M faults in 4K
	awk -F, -v m=$m 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == m && $4 == "rest" { n++
			if ($col["whole_before"] == 1 && $col["pages_4k_delta"] == 511 &&
			    $col["npt_faults"] >= 511) good++ }
		END { exit !(n == 20 && good >= n * 0.9) }' "$ev"
	tap_ok $? "$m: after a split the rest of the 2M faults in 4K: 511 entries, 511 faults"
done
# in place with the merge back off (the default), the range made uniform
# again stays 4K: no 2M entry comes back, nothing split
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$1 == "inplace" && $4 == "uniform" { n++
		if ($col["pages_2m_delta"] == 0 && $col["thp_splits"] == 0) good++ }
	END { exit !(n == 20 && good == n) }' "$ev"
tap_ok $? "inplace: the uniform event maps no 2M entry again and splits nothing (merge back off)"
grep -q '"kind": "split"' "$work/ev/churn.json" &&
	grep -q '"work_median"' "$work/ev/churn.json"
tap_ok $? "churn.json has the events, their p50 and median work"

# --- the merge back (--churn-merge, kernel/patches 0048): in place, each
# uniform event copies the range back into one huge folio, and the
# piece's next access maps all of it with one 2M entry
"$CB" --workload=split --mode=inplace --churn-merge --rounds=1 --churn-ops=40 \
	--stall-timeout=30 --out="$work/evm" >"$work/evm.txt" 2>&1
rc=$?
if [ $rc = 4 ] && [ "${CONVBENCH_REQUIRE_SERIES:-0}" != 1 ]; then
	tap_skip "$(tail -n 1 "$work/evm.txt")" "--churn-merge: the merge back, as events and under churn"
else
	tap_ok $rc "--workload=split --churn-merge exits 0 (got $rc)"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "inplace+merge" && $4 == "uniform" { n++
			if ($col["whole_before"] == 1 && $col["thp_merges"] == 1 &&
			    $col["pages_2m_delta"] == 1 && $col["npt_faults"] == 1) good++ }
		END { exit !(n == 20 && good >= n * 0.9) }' "$work/evm/events.csv"
	tap_ok $? "inplace+merge: the uniform event merges the range (1 merge) and one fault maps it 2M again"
	# under churn: the same sequence as run a, merges counted, and the
	# 2M coverage at the end above the variant's without the merge
	"$CB" --workload=churn --mode=inplace --churn-merge --rounds=1 \
		--churn-range=$RANGE --churn-ops=$OPS --churn-interval=$EVERY \
		--stall-timeout=30 --seed=7 --out="$work/cm" >"$work/cm.txt" 2>&1
	tap_ok $? "--workload=churn --churn-merge exits 0"
	awk -F, '$1 == "inplace" { print $4, $5, $6, $7 }' "$work/a/churn-ops.csv" >"$work/seq-a"
	awk -F, '$1 == "inplace+merge" { print $4, $5, $6, $7 }' "$work/cm/churn-ops.csv" >"$work/seq-m"
	[ -s "$work/seq-m" ] && cmp -s "$work/seq-a" "$work/seq-m"
	tap_ok $? "the merge run replays run a's in-place sequence"
	end_a=$(awk -F, '$1 == "inplace" { c = $7 } END { print c + 0 }' "$work/a/churn.csv")
	last=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "inplace+merge" { c = $col["coverage_2m"]; m = $col["thp_merge"] }
		END { print m + 0, c + 0 }' "$work/cm/churn.csv")
	echo "$last" | awk -v a="$end_a" '{ exit !($1 > 0 && $2 > a) }'
	tap_ok $? "inplace+merge: merges counted and 2M coverage at the end above the variant's without (merges, coverage: $last; without: $end_a)"
fi

# --- a boot's conversion storm (--workload=accept): 8M in chunks of 4K,
# 2M and 4M, made private chunk by chunk and shared again
"$CB" --workload=accept --mode=destructive,inplace --rounds=1 \
	--churn-range=8M --stall-timeout=30 --out="$work/acc" >"$work/acc.txt" 2>&1
rc=$?
tap_ok $rc "--workload=accept of both modes exits 0 (got $rc)"
acc=$work/acc/accept.csv
[ "$(grep -c '^[a-z]*,0,[0-9]*,\(accept\|pool\),' "$acc" 2>/dev/null)" = 12 ]
tap_ok $? "accept.csv: 2 modes x 3 chunk sizes x 2 sweeps"
# 4K chunks: one exit and one NPT fault per conversion, 256 per MiB;
# a 2M or 4M chunk of the v5 modes' huge private fd: a fault per 2M
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["chunk_bytes"] == 4096 { n4++; if ($col["conversions"] == 2048 && $col["exits_per_mib"] == 256 && $col["npt_faults_per_mib"] >= 256) ok4++ }
	$col["chunk_bytes"] >= 2097152 { nb++; if ($col["npt_faults_per_mib"] <= 1 && $col["exits_per_mib"] <= 0.5) okb++ }
	END { exit !(n4 == 4 && ok4 == 4 && nb == 8 && okb == 8) }' "$acc"
tap_ok $? "accept: 4K chunks take an exit and a fault per 4K; 2M and 4M chunks a fault per 2M"
sed 's/^/# /' "$acc" | cut -d, -f1-9 | head -n 13

rm -rf "$work"
tap_finish
