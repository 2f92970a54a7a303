#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The functions convbench's BPF tools probe exist in this kernel as
# probe points: in /proc/kallsyms (kprobes), in ftrace's
# available_filter_functions (fentry/fexit attach through ftrace) and as
# BTF FUNCs (fentry/fexit need their prototype). An inlined or renamed
# (.isra/.constprop) function fails here rather than in a benchmark run.
#
# busybox sh. TAP-like lines; exit 0 pass, 1 fail, 4 skip (no series).
# For trying the script elsewhere: PROBE_FUNCS (names to check, also
# turns off the skip), KALLSYMS, TRACING (folder with
# available_filter_functions, no mount attempted) and BTF override the
# defaults.

# convtrace's default set, then what convbench --counts attaches to
FUNCS=${PROBE_FUNCS:-"memfile_notifier_invalidate memfile_notifier_fallocate kvm_faultin_pfn_private shmem_fallocate shmem_convert_range shmem_get_lock_pfn clear_huge_page native_send_call_func_ipi native_send_call_func_single_ipi native_smp_send_reschedule kvm_flush_remote_tlbs kvm_make_all_cpus_request"}
HERE=$(dirname "$0")
KALLSYMS=${KALLSYMS:-/proc/kallsyms}
BTF=${BTF:-/sys/kernel/btf/vmlinux}
tracing=${TRACING:-}
. "$HERE/tap.sh"

# CONVBENCH_REQUIRE_SERIES=1 (the project's own VM): no series is a failure
if [ -z "$PROBE_FUNCS" ] && ! grep -q ' memfile_' "$KALLSYMS" 2>/dev/null; then
	why="no memfile_* symbol in $KALLSYMS: kernel lacks the series"
	case ${CONVBENCH_REQUIRE_SERIES:-0} in
	0)
		echo "ok 1 - test_probe_points # SKIP $why"
		echo "# 0 passed, 0 failed, 1 skipped"
		exit 4 ;;
	*)
		echo "not ok 1 - test_probe_points: $why (CONVBENCH_REQUIRE_SERIES is set)"
		echo "# 0 passed, 1 failed"
		exit 1 ;;
	esac
fi

for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -z "$tracing" ] && [ -r "$d/available_filter_functions" ] && tracing=$d
done
if [ -z "$tracing" ] && [ -z "$TRACING" ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -r /sys/kernel/tracing/available_filter_functions ] &&
		tracing=/sys/kernel/tracing
fi
[ -n "$tracing" ] || echo "# no tracefs with available_filter_functions"

for f in $FUNCS; do
	# "addr t name" or "addr t name<TAB>[module]"
	grep -qE "^[0-9a-f]+ [tTwW] $f([[:space:]]|\$)" "$KALLSYMS"
	rc=$?
	[ $rc -ne 0 ] && grep -E " $f[.]" "$KALLSYMS" | sed 's/^/# similar: /'
	tap_ok $rc "$f in $KALLSYMS"
done

for f in $FUNCS; do
	rc=1
	[ -n "$tracing" ] &&
		grep -qE "^$f( |\$)" "$tracing/available_filter_functions" && rc=0
	tap_ok $rc "$f in available_filter_functions"
done

for f in $FUNCS; do
	if [ -x "$HERE/btf_has_func" ]; then
		out=$("$HERE/btf_has_func" -f "$BTF" "$f" 2>&1)
		rc=$?
		echo "# $out"
		tap_ok $rc "$f is a BTF FUNC"
	else
		# fallback: the name is in the string table (weaker)
		grep -q -z -x -F "$f" "$BTF" 2>/dev/null
		tap_ok $? "$f is a BTF string (btf_has_func not built)"
	fi
done

echo "# $passed passed, $failed failed"
[ $failed -eq 0 ]
