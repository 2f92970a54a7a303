#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convtrace in the project's kernel (run inside the VM): the series'
# functions are attached with fentry/fexit and their call counts around
# tests/bpf/workload match what the workload's model of v5's shmem says
# ("expect NAME N" lines), without KVM and with a private memslot
# registered; then host_kvm_exits (nested KVM), known_latency (calls of
# known duration land in their bucket, fentry and kprobes) and,
# informational, the probe overhead (overhead.sh).
#
# busybox sh. TAP-like lines, last line "N passed, N failed[, N skipped]".
# Exit 0 pass, 1 fail, 4 skip. CONVBENCH_REQUIRE_SERIES=1: a kernel
# without the series fails instead of skipping. Results (CSV, histograms)
# go to $CONVBENCH_OUT/bpf (default /tmp/bpf).

HERE=$(cd "$(dirname "$0")" && pwd)
CT=$HERE/convtrace
WL=$HERE/workload
RES=${CONVBENCH_OUT:-/tmp}/bpf
mkdir -p "$RES" || exit 1
. "$HERE/tap.sh"

# sum of PROBE's counts over contexts (count repeats on each bucket line)
csv_count() {	# csv_count FILE PROBE
	awk -F, -v p="$2" '$1 == p && !seen[$3]++ { s += $5 } END { print s + 0 }' "$1"
}

csv_attach() {	# csv_attach FILE PROBE
	awk -F, -v p="$2" '$1 == p { print $2; exit }
		$1 == "# missing" && $2 == p { print "missing"; exit }' "$1"
}

if ! grep -q ' memfile_notifier_invalidate$' /proc/kallsyms; then
	why="no memfile_notifier_invalidate in /proc/kallsyms: kernel lacks the series"
	case ${CONVBENCH_REQUIRE_SERIES:-0} in
	0) tap_skip test_vm "$why" ;;
	*) tap_ok 1 "test_vm: $why (CONVBENCH_REQUIRE_SERIES is set)" ;;
	esac
	tap_finish
fi

# run_case NAME WORKLOAD-ARGS...: counts of every "expect" line
# (CT_ARGS: more convtrace options)
run_case() {
	name=$1
	shift
	echo "# convtrace $CT_ARGS -- workload $*"
	# shellcheck disable=SC2086
	"$CT" $CT_ARGS -o "$RES/$name.csv" -- "$WL" "$@" > "$RES/$name.out" \
		2> "$RES/$name.err"
	rc=$?
	sed 's/^/# /' "$RES/$name.err"
	if [ $rc -eq 4 ]; then
		tap_skip "$name" "workload skipped: $(grep workload: "$RES/$name.err" | head -n 1)"
		return
	fi
	tap_ok $rc "$name: convtrace -- workload $* exits 0 ($rc)"
	[ $rc -eq 0 ] || return
	grep '^expect ' "$RES/$name.out" > "$RES/$name.expect"
	while read -r _ probe want; do
		got=$(csv_count "$RES/$name.csv" "$probe")
		how=$(csv_attach "$RES/$name.csv" "$probe")
		[ "$got" = "$want" ]
		tap_ok $? \
			"$name: $probe called $want times ($got, ${how:-not in CSV})"
	done < "$RES/$name.expect"
}

# the series' hooks must get fentry/fexit here, the rest may use kprobes
"$CT" -q -o "$RES/probe.csv" -- true > /dev/null 2> "$RES/probe.err"
tap_ok $? "convtrace loads and attaches in this kernel"
sed 's/^/# /' "$RES/probe.err"
for f in shmem_fallocate memfile_notifier_invalidate \
	 memfile_notifier_fallocate kvm_faultin_pfn_private \
	 kvm_memfile_notifier_handler kvm_vm_ioctl_set_sw_private_range; do
	how=$(csv_attach "$RES/probe.csv" "$f")
	[ "$how" = fentry ]
	tap_ok $? "$f is attached with fentry/fexit (${how:-?})"
done
grep -q "not traced" "$RES/probe.err" &&
	echo "# (functions this kernel lacks are listed above, by name)"

CT_ARGS=
run_case memfd -n 16 -k 4 -m 4 -g 3 -r 2 -c 2
run_case memfd_kvm --kvm -n 16 -k 4 -m 4 -g 3 -r 2 -c 2 -s 3
# the same counts through kprobes/kretprobes (the fallback path)
CT_ARGS=-K
run_case memfd_kprobe --kvm -n 16 -k 4 -m 4 -g 3 -r 2 -c 2 -s 3
how=$(csv_attach "$RES/memfd_kprobe.csv" shmem_fallocate)
[ "$how" = kprobe ]
tap_ok $? "-K: shmem_fallocate is attached with a kprobe (${how:-?})"

# the library test, nested KVM: its lines renumbered into ours
echo "# host_kvm_exits (nested guest)"
"$HERE/host_kvm_exits" -n 5 > "$RES/host_kvm_exits.out" 2>&1
rc=$?
while IFS= read -r line; do
	case $line in
	"ok "*"# SKIP"*) t=${line#ok * - }; tap_skip "host_kvm_exits: ${t%% # SKIP*}" "${t#* # SKIP }" ;;
	"ok "*) tap_ok 0 "host_kvm_exits: ${line#ok * - }" ;;
	"not ok "*) tap_ok 1 "host_kvm_exits: ${line#not ok * - }" ;;
	*" passed, "*) ;;
	"#"*) echo "$line" ;;
	*) echo "# $line" ;;
	esac
done < "$RES/host_kvm_exits.out"
case $rc in
0|1|4) ;;
*) tap_ok 1 "host_kvm_exits exited $rc (crash or timeout)" ;;
esac

# calls of known duration land in the right bucket: fentry, kprobes
for k in "" -K; do
	echo "# known_latency $k"
	"$HERE/known_latency" $k > "$RES/known_latency$k.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*) t=${line#ok * - }; tap_skip "known_latency$k: ${t%% # SKIP*}" "${t#* # SKIP }" ;;
		"ok "*) tap_ok 0 "known_latency$k: ${line#ok * - }" ;;
		"not ok "*) tap_ok 1 "known_latency$k: ${line#not ok * - }" ;;
		*" passed, "*) ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < "$RES/known_latency$k.out"
	case $rc in
	0|1|4) ;;
	*) tap_ok 1 "known_latency $k exited $rc (crash or timeout)" ;;
	esac
done
# in this kernel the function probe must run, not skip
grep -q "^ok .*hrtimer_nanosleep: 20.0 ms call in bucket" "$RES/known_latency.out" &&
	grep -q "^ok .*hrtimer_nanosleep (kprobe): 20.0 ms call in bucket" "$RES/known_latency-K.out"
tap_ok $? "known_latency: hrtimer_nanosleep was probed with fentry and with kprobes"

if [ -x "$HERE/overhead.sh" ] && [ "${OVERHEAD_PAIRS:-2000}" != 0 ]; then
	echo "# overhead (informational)"
	"$HERE/overhead.sh" "${OVERHEAD_PAIRS:-2000}" 2>&1 | tee "$RES/overhead.txt" |
		sed 's/^/# /'
fi
tap_finish
