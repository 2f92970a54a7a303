# SPDX-License-Identifier: GPL-2.0
#
# Kernel reports in a guest's console log, sourced by run-vm.sh (bash)
# and by tests/unit/test_kreport.sh, which feeds it canned logs.
#
# kreport_scan LOG sets
#   kreport_panic  the first line of a report that fails any run (a
#                  panic, an oops, a BUG: KASAN, bad page state,
#                  sleeping in atomic, a soft lockup), or empty;
#   kreport_warn   the first line of a report that fails a run under
#                  --fail-on-warn (a WARNING: WARN_ON, lockdep, suspicious
#                  RCU use; a lockdep annotation report; an RCU stall;
#                  a hung task; UBSAN; a file closed with count 0), or
#                  empty;
#   kreport_nwarn  how many such warning lines there are.
# The guest's whole dmesg comes after the command, between the
# CONVBENCH-DMESG-START and -END markers (below the console's log level
# too): only that part is read, so the command's own output cannot fake
# or hide a report. Without the END marker (a crash or a hang), the
# whole console is read. A kernel panic counts wherever it shows.

kreport_panic_re='BUG: |kernel BUG at|Oops: |: [0-9a-f]{4} \[#[0-9]+\]'
kreport_warn_re='WARNING: |INFO: task .* blocked for more than|UBSAN: |INFO: trying to register non-static key|INFO: rcu_[a-z_]* (self-)?detected stall|VFS: Close: file count is 0'

kreport_scan() {	# LOG
	local kmsg
	if grep -q '^CONVBENCH-DMESG-END' "$1"; then
		kmsg=$(sed -n '/^CONVBENCH-DMESG-START/,/^CONVBENCH-DMESG-END/p' "$1")
	else
		kmsg=$(cat "$1")
	fi
	kreport_panic=$(grep -m1 'Kernel panic - not syncing' "$1" ||
		grep -m1 -E "$kreport_panic_re" <<<"$kmsg" || true)
	kreport_warn=$(grep -m1 -E "$kreport_warn_re" <<<"$kmsg" || true)
	kreport_nwarn=$(grep -c -E "$kreport_warn_re" <<<"$kmsg" || true)
}
