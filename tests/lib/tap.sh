# SPDX-License-Identifier: GPL-2.0
#
# TAP lines for the shell tests (bash and busybox sh); every shell test
# sources this file, as kselftest's do ktap_helpers.sh, and tap.h is
# the same for C:
#   tap_ok STATUS NAME     "ok N - NAME" when STATUS is 0, else "not ok N - NAME"
#   tap_skip NAME [WHY]    "ok N - NAME # SKIP WHY"
#   tap_finish             the closing line "N passed, N failed" (", N
#                          skipped" when some were) and the exit status:
#                          1 when one failed, else 4 (kselftest's skip)
#                          when none passed, else 0
# Its counters are n, passed, failed and skipped.

n=0 passed=0 failed=0 skipped=0

tap_ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"; passed=$((passed + 1))
	else
		echo "not ok $n - $2"; failed=$((failed + 1))
	fi
}

tap_skip() {
	n=$((n + 1)); skipped=$((skipped + 1))
	echo "ok $n - $1 # SKIP${2:+ $2}"
}

tap_finish() {
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ] || exit 1
	[ "$passed" -gt 0 ] || exit 4
	exit 0
}
