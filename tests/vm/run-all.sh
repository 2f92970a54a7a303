#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run convbench's in-VM tests from this folder and count result lines
# across all of them:
#   "ok N - ..."            passed
#   "not ok N - ..."        failed
#   "ok N - ... # SKIP ..." skipped
# A test whose exit code disagrees with its lines adds one: exit 1 with
# no "not ok" line, exit 0 with no result line at all, a crash or a
# timeout count as 1 failed, exit 4 without a SKIP line as 1 skipped
# (tests/unit/test_run_all.sh checks this accounting). Per-test counts
# are printed as "# ..." lines; the last line is "N passed, N failed,
# N skipped".
# Exit 0 only when nothing failed.
#
# busybox sh. TEST_TIMEOUT (seconds, default 300) bounds each test;
# TESTS="a b" runs only those.
# CONVBENCH_REQUIRE_SERIES=1 (exported to the tests) turns "kernel lacks
# the series" from a skip into a failure: set it in the project's VM.

cd "$(dirname "$0")" || exit 1
TESTS=${TESTS:-"test_memfd_inaccessible test_private_memslot test_private_setup test_private_teardown test_private_fault test_private_flip test_private_emulate test_private_reclaim test_private_smm test_inplace test_inplace_2m test_inplace_race test_private_isolation test_private_mm test_private_2m test_probe_points.sh test_convbench.sh test_churn.sh test_io.sh test_convbench_errors.sh test_convbench_gmem.sh test_inplace_check test_stress_diag.sh"}
TIMEOUT=${TEST_TIMEOUT:-300}
tmp=$(mktemp -d 2>/dev/null) || { tmp=/tmp/convbench-tests.$$; mkdir -p "$tmp"; }
passed=0 failed=0 skipped=0

for t in $TESTS; do
	echo "# ===== $t"
	if [ ! -x "./$t" ]; then
		echo "not ok - $t is not built"
		failed=$((failed + 1))
		continue
	fi
	{
		if command -v timeout >/dev/null 2>&1; then
			timeout "$TIMEOUT" "./$t"
		else
			"./$t"
		fi
		echo $? >"$tmp/rc"
	} 2>&1 | tee "$tmp/out"
	rc=$(cat "$tmp/rc")
	p=$(grep -E '^ok [0-9]+' "$tmp/out" | grep -vc '# SKIP')
	s=$(grep -E '^ok [0-9]+' "$tmp/out" | grep -c '# SKIP')
	f=$(grep -cE '^not ok [0-9]+' "$tmp/out")
	case $rc in
	0) [ $((p + f + s)) -eq 0 ] && { echo "not ok - $t exited 0 without a result line"; f=1; } ;;
	1) [ "$f" -eq 0 ] && { echo "not ok - $t exited 1 without a failing line"; f=1; } ;;
	4) [ "$s" -eq 0 ] && { echo "ok - $t # SKIP exited 4 without a SKIP line"; s=1; } ;;
	*) echo "not ok - $t exited $rc (crash or timeout)"; f=$((f + 1)) ;;
	esac
	echo "# $t: $p passed, $f failed, $s skipped (exit $rc)"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done

rm -rf "$tmp"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
