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

# kreport_excerpt LOG LINE [N]: the report that starts at LINE (kreport_panic
# or kreport_warn), N lines of it (default 40) as the console has them,
# each indented "  | ", after the in-VM test it came during when the
# console printed it live (tests/vm/run-all.sh's "# =====" heading): what
# a CI log must show when nobody can read the VM's console afterwards.
kreport_excerpt() {
	local at
	at=$(grep -n -m1 -F -- "$2" "$1" | cut -d: -f1)
	[[ -n $at ]] || return 0
	# a panic follows the oops that caused it: start at the kernel's
	# first report line before it (or 30 lines up)
	if [[ $2 == *'Kernel panic - not syncing'* ]]; then
		local oops
		oops=$(head -n "$at" "$1" | grep -n -E "^\[ *[0-9.]+\] .*($kreport_panic_re|$kreport_warn_re)" |
			head -n1 | cut -d: -f1)
		at=${oops:-$((at > 30 ? at - 30 : 1))}
	fi
	# a report printed live (before the dmesg block) names its test
	grep -q '^CONVBENCH-DMESG-START' <(head -n "$at" "$1") ||
		head -n "$at" "$1" | grep '^# ===== ' | tail -n1 | sed 's/^# =====/  | during:/'
	sed -n "$at,$((at + ${3:-40} - 1))p" "$1" | sed 's/^/  | /'
}
