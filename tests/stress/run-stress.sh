#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress: boot the debug kernel (KASAN, lockdep, DEBUG_VM; make
# kernel FLAVOUR=debug) on 4 CPUs and run convstress in it: random
# conversions on 4 vCPUs in both modes while host threads punch,
# convert, pin, map, compact and try to read private memory. It fails
# on a data mismatch, an access that should have been refused, a hung
# vCPU or guest, and on any kernel report in the guest's dmesg
# (WARNING, BUG, KASAN, lockdep, an RCU stall). A hang and a SHUTDOWN
# come with convstress's report of where every vCPU and its thread are
# ("# diag:" lines; guest addresses are named with addr2line here).
# The kernel merges split 2M blocks back (shmem.convert_merge=1, kernel
# patch 48) throughout, so the storm's conversions and host attacks meet
# merges too; each VM's closing line counts them (/proc/vmstat).
#
# The emulator's triple fault (QEMU TCG with several vCPUs: a SHUTDOWN
# with the guest's page tables and IDT intact, no exception from KVM;
# tests/lib/emu_retry.sh) is the emulator's, not the kernel's. When it
# is a VM's only failure, the storm goes on in a fresh VM from each vCPU's
# position in the seed's sequence (convstress --start-op) for the storm
# time left, at most --max-emu-faults times (default 10); every such
# fault is counted and listed in the closing lines. Any other failure
# ends the storm at once and is never run again.
#
# Under TCG the storm runs QEMU's vCPUs in one thread
# (CONVBENCH_TCG_THREAD=single, run-vm.sh) unless CONVBENCH_TCG_THREAD
# says otherwise: with several threads the emulator now and then saves
# L1's own registers as a nested guest's (a vCPU then hangs on state
# its guest cannot produce, README "Why QEMU"), which fails the storm;
# one thread is slower and was not seen to. The first line says which.
#
#   tests/stress/run-stress.sh [--duration S] [--seed N] [--bins DIR]
#                              [--kernel BZIMAGE] [--max-emu-faults N]
#                              [--out DIR]
#
# The seed is printed first; --seed replays it. Results: DIR (default
# build/stress)/<time>/vmN/ (each VM's console.log, vm.env) and vmN.txt
# (its output).
# Exit 0 the storm ran its duration clean; 1 a failure (or more emulator
# faults than allowed); 2 bad usage; the VM runner's 124/125/126 (a hung
# guest, a kernel report, no status).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/lib/emu_retry.sh
. tests/lib/emu_retry.sh

usage() { echo "run-stress: $*" >&2; exit 2; }
duration=600 seed= bins=build/tests kernel= max_emu=10 results=build/stress
while (($#)); do
	case $1 in
	--duration) duration=${2:?--duration expects seconds}; shift 2 ;;
	--seed) seed=${2:?--seed expects a number}; shift 2 ;;
	--bins) bins=${2:?--bins expects a folder}; shift 2 ;;
	--kernel) kernel=${2:?--kernel expects a bzImage}; shift 2 ;;
	--max-emu-faults) max_emu=${2:?--max-emu-faults expects a number}; shift 2 ;;
	--out) results=${2:?--out expects a folder}; shift 2 ;;
	*) usage "unknown option '$1' (expected --duration, --seed, --bins, --kernel, --max-emu-faults, --out)" ;;
	esac
done
[[ $duration =~ ^[0-9]+$ ]] && ((duration >= 1 && duration <= 86400)) ||
	usage "--duration expects a whole number of seconds in 1..86400, got '$duration'"
[[ -z $seed || $seed =~ ^[0-9]{1,19}$ ]] ||
	usage "--seed expects a number, got '$seed'"
[[ $max_emu =~ ^[0-9]+$ ]] && ((max_emu <= 100)) ||
	usage "--max-emu-faults expects a number in 0..100, got '$max_emu'"
[[ -x $bins/convstress ]] || usage "$bins/convstress is not built (make tests-bin)"
if [[ -z $kernel ]]; then
	kernel=$(FLAVOUR=debug kernel/build.sh --print) ||
		{ echo "run-stress: build the debug kernel first (make kernel FLAVOUR=debug)"; exit 1; }
	kernel=$kernel/bzImage
fi
[[ -f $kernel ]] || usage "--kernel expects a bzImage, got '$kernel'"
# the seed is fixed here, so that every VM of the storm shares it
[[ -n $seed ]] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')

mkdir -p "$results"
top=$(mktemp -d "$results/$(date +%Y%m%d-%H%M%S)-XXXX")
# one emulator thread for the vCPUs unless told otherwise (see above)
export CONVBENCH_TCG_THREAD=${CONVBENCH_TCG_THREAD:-single}
echo "# run-stress: seed $seed, $duration s of storm, results in $top"
accel=$(kernel/vm/run-vm.sh --which-accel 2>/dev/null || echo '?')
if [[ $accel == tcg ]]; then
	threads="one thread"
	[[ $CONVBENCH_TCG_THREAD == single ]] || threads="several threads"
	echo "# run-stress: accelerator tcg, QEMU's vCPUs in $threads (CONVBENCH_TCG_THREAD=$CONVBENCH_TCG_THREAD)"
else
	echo "# run-stress: accelerator $accel"
fi

# name the guest's addresses of a VM's report (guest code is convstress's)
symbolize() {	# TXT
	local a
	command -v addr2line >/dev/null || return 0
	{ grep -oE '(guest rip|rip) 0x[0-9a-f]+' "$1" || true; } |
		awk '{ print $NF }' | sort -u | while read -r a; do
			echo "# run-stress: $a is $(addr2line -f -i -p -e "$bins/convstress" "$a" | tr '\n' ' ')"
		done
}

done_s=0 vm=0 faults=0 start= rc=0 events=() crawls=() merges=()
while :; do
	vm=$((vm + 1)) vm_start=$start
	left=$(awk -v d="$duration" -v s="$done_s" 'BEGIN { l = d - s; printf "%d", l == int(l) ? l : int(l) + 1 }')
	txt=$top/vm$vm.txt
	# boot and setup take about a minute under TCG with KASAN; a guest
	# that does not finish well after the run's end hangs
	set +e
	kernel/vm/run-vm.sh --kernel "$kernel" --out "$top/vm$vm" \
		--cpus 4 --mem 3072 --timeout $((left + 300)) --fail-on-warn \
		--cmdline "numa=fake=2 shmem.convert_merge=1" --add "$bins/convstress" \
		-- sh -c "convstress --duration=$left --seed=$seed ${start:+--start-op=$start}; r=\$?; echo \"# merges: \$(grep thp_convert_merge /proc/vmstat | tr '\\n' ' ')\"; exit \$r" |
		tee "$txt"
	rc=${PIPESTATUS[0]}
	set -e
	symbolize "$txt"
	crawls+=("VM $vm: $(sed -n 's/^# crawls: //p' "$txt" | tail -n 1)")
	merges+=("VM $vm: $(sed -n 's/^# merges: //p' "$txt" | tail -n 1)")
	((rc == 0)) && break
	grep '^not ok ' "$txt" >"$txt.fail" || true
	storm=$(sed -n 's/^# storm: \([0-9.]*\) s$/\1/p' "$txt" | tail -n 1)
	pos=$(sed -n 's/^# positions: --start-op=\([0-9,]*\)$/\1/p' "$txt" | tail -n 1)
	# the emulator's fault, alone, with a kernel that reported nothing
	# (run-vm: 125 otherwise) and the storm's time and positions said
	if ((rc == 1)) && emu_fault "$txt.fail" && [[ -n $storm && -n $pos ]]; then
		faults=$((faults + 1))
		at=$(awk -v a="$done_s" -v b="$storm" 'BEGIN { printf "%.1f", a + b }')
		events+=("at $at s of storm (VM $vm): $(sed 's/^not ok 1 - convstress: //' "$txt.fail")")
		done_s=$at start=$pos
		if ((faults > max_emu)); then
			echo "# run-stress: more emulator triple faults than --max-emu-faults $max_emu: the storm stops at $at s (CONVBENCH_TCG_THREAD=single avoids them, slower)"
			rc=1
			break
		fi
		if awk -v d="$duration" -v s="$done_s" 'BEGIN { exit !(d - s < 1) }'; then
			rc=0	# the storm had run its time
			break
		fi
		echo "# run-stress: the emulator's triple fault at $at s of storm: the storm goes on in a fresh VM from --start-op=$pos"
		continue
	fi
	break
done

echo "# run-stress: seed $seed, $duration s of storm in $vm VM(s); emulator triple faults: $faults (at most $max_emu, each continued in a fresh VM)"
for e in "${events[@]}"; do
	echo "# run-stress:   $e"
done
# a vCPU whose faults KVM fixed too slowly to exit in 30 s (convstress)
for c in "${crawls[@]}"; do
	echo "# run-stress: crawls, $c"
done
# the merge back's work in each VM (thp_convert_merge, _busy, _failed)
for m in "${merges[@]}"; do
	echo "# run-stress: merges, $m"
done
if ((rc == 0)); then
	echo "1 passed, 0 failed"
else
	echo "# run-stress: VM $vm failed (exit $rc); replay: tests/stress/run-stress.sh --duration $duration --seed $seed${vm_start:+ (that VM alone: convstress --seed=$seed --start-op=$vm_start --duration=$left)}"
	echo "0 passed, 1 failed"
fi
exit "$rc"
