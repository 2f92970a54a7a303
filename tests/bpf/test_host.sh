#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convtrace on the host kernel, where only tracepoint programs load:
# host_kvm_exits (the library: missing function probes reported by name,
# exact kvm_userspace_exit counts, contexts, the tgid filter),
# known_latency (VMM round trips of known length land in the bucket of
# their latency, in the CSV and the printed histogram), then the
# convtrace wrapper around a tiny KVM guest: CSV counts, the report of
# missing functions, exit status, bad options, -p, SIGTERM.
#
# POSIX sh. TAP-like lines; the last line is "N passed, N failed[, N
# skipped]". Exit 0 pass, 1 fail, 4 skip (no /dev/kvm or no BPF).

HERE=$(cd "$(dirname "$0")" && pwd)
CT=${CONVTRACE:-$HERE/convtrace}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$HERE/tap.sh"

# count of PROBE in a convtrace CSV: one count per (probe, context)
csv_count() {	# csv_count FILE PROBE
	awk -F, -v p="$2" '$1 == p && !seen[$3]++ { s += $5 } END { print s + 0 }' "$1"
}

# lib_test NAME CMD...: a C test's TAP lines renumbered into ours;
# returns its exit status
lib_test() {
	echo "# $1"
	shift
	"$@" > "$tmp/lib.out" 2>&1
	lrc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*) t=${line#ok * - }
			tap_skip "${t%% # SKIP*}" "${t#* # SKIP }" ;;
		"ok "*) tap_ok 0 "${line#ok * - }" ;;
		"not ok "*) tap_ok 1 "${line#not ok * - }" ;;
		*" passed, "*) ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < "$tmp/lib.out"
	return $lrc
}

# --- the library tests
lib_test host_kvm_exits "$HERE/host_kvm_exits"
rc=$?
case $rc in
0|1) ;;
4) echo "# host_kvm_exits skipped: the wrapper checks need the same"; tap_finish ;;
*) tap_ok 1 "host_kvm_exits exited $rc (crash?)" ;;
esac
# calls of known duration: the bucket, not only the count
lib_test known_latency "$HERE/known_latency"
rc=$?
case $rc in
0|1|4) ;;
*) tap_ok 1 "known_latency exited $rc (crash?)" ;;
esac

# --- the wrapper
echo "# convtrace -- host_kvm_exits --guest-only 7"
"$CT" -o "$tmp/g.csv" -- "$HERE/host_kvm_exits" --guest-only 7 \
	> "$tmp/g.out" 2> "$tmp/g.err"
rc=$?
sed 's/^/# /' "$tmp/g.err"
tap_ok $rc "convtrace exits with the command's status 0 ($rc)"
c=$(csv_count "$tmp/g.csv" kvm:kvm_userspace_exit)
[ "$c" = 8 ]
tap_ok $? "CSV: kvm_userspace_exit 8 = 7 IO + 1 HLT ($c)"
c=$(csv_count "$tmp/g.csv" kvm:userspace_roundtrip)
[ "$c" = 7 ]
tap_ok $? "CSV: userspace round trips 7 ($c)"
grep -q "kvm:kvm_userspace_exit" "$tmp/g.out"
tap_ok $? "histograms printed when the command exits"
ok=0
for f in shmem_fallocate memfile_notifier_invalidate \
	 memfile_notifier_fallocate kvm_faultin_pfn_private; do
	# missing here: named in the report (a function this kernel lacks:
	# on stderr with -v only); attached: in the summary table
	grep -q "not traced:.* ${f} " "$tmp/g.err" "$tmp/g.out" ||
		grep -q "^$f " "$tmp/g.out" || { ok=1; echo "# $f not reported"; }
done
tap_ok $ok "each function probe is traced or reported by name"
grep -q "tracepoint rows" "$tmp/g.err"
tap_ok $? "convtrace says what it attached"

"$CT" -q -o "$tmp/x.csv" -- sh -c 'exit 7' > /dev/null 2>&1
rc=$?
[ $rc = 7 ]
tap_ok $? "exit status of the command passes through (7: $rc)"

"$CT" -q -o "$tmp/x.csv" -- sh -c 'kill -9 $$' > /dev/null 2>&1
rc=$?
[ $rc = 137 ]
tap_ok $? "a command killed by SIGKILL gives 137 ($rc)"

"$CT" --frobnicate -- true > /dev/null 2> "$tmp/bad.err"
rc=$?
[ $rc = 2 ] && grep -q "unknown option" "$tmp/bad.err"
tap_ok $? \
	"an unknown option exits 2 with a message ($rc: $(head -n1 "$tmp/bad.err"))"
"$CT" -p 12x > /dev/null 2> "$tmp/bad.err"
rc=$?
[ $rc = 2 ]
tap_ok $? "a bad -p exits 2 ($rc: $(head -n1 "$tmp/bad.err"))"
"$CT" > /dev/null 2>&1
[ $? = 2 ]
tap_ok $? "no command and no -p exits 2"

sleep 1 &
sp=$!
"$CT" -q -o "$tmp/p.csv" -p $sp > /dev/null 2>&1
rc=$?
[ $rc = 0 ] && [ -s "$tmp/p.csv" ]
tap_ok $? \
	"-p PID stops when the process exits, writes the CSV ($rc)"

"$CT" -- sleep 10 > "$tmp/t.out" 2>&1 &
cp=$!
sleep 1
kill -TERM $cp
wait $cp
rc=$?
[ $rc = 143 ] && grep -q "^probe " "$tmp/t.out"
tap_ok $? \
	"SIGTERM goes to the command, histograms still printed ($rc)"

tap_finish
