#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress: boot the debug kernel (KASAN, lockdep, DEBUG_VM; make
# kernel FLAVOUR=debug) on 4 CPUs and run convstress in it: random
# conversions on 4 vCPUs in both modes while host threads punch,
# convert, pin, map, compact and try to read private memory. It fails
# on a data mismatch, an access that should have been refused, a hung
# vCPU or guest, and on any kernel report in the guest's dmesg
# (WARNING, BUG, KASAN, lockdep). The seed is printed first;
# --seed replays it.
#
#   tests/stress/run-stress.sh [--duration S] [--seed N] [--bins DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."

duration=600 seed= bins=build/tests
while (($#)); do
	case $1 in
	--duration) duration=${2:?--duration expects seconds}; shift 2 ;;
	--seed) seed=${2:?--seed expects a number}; shift 2 ;;
	--bins) bins=${2:?--bins expects a folder}; shift 2 ;;
	*) echo "run-stress: unknown option '$1' (expected --duration, --seed, --bins)" >&2; exit 2 ;;
	esac
done
[[ $duration =~ ^[0-9]+$ ]] && ((duration >= 1)) ||
	{ echo "run-stress: --duration expects a whole number of seconds, got '$duration'" >&2; exit 2; }
[[ -z $seed || $seed =~ ^[0-9]+$ ]] ||
	{ echo "run-stress: --seed expects a number, got '$seed'" >&2; exit 2; }
[[ -x $bins/convstress ]] || { echo "run-stress: $bins/convstress is not built (make tests-bin)" >&2; exit 2; }
kernel=$(FLAVOUR=debug kernel/build.sh --print) ||
	{ echo "run-stress: build the debug kernel first (make kernel FLAVOUR=debug)"; exit 1; }

mkdir -p build/stress
out=$(mktemp -d "build/stress/$(date +%Y%m%d-%H%M%S)-XXXX")
rmdir "$out"
# boot and setup take about a minute under TCG with KASAN; a guest that
# does not finish well after the run's end hangs
exec kernel/vm/run-vm.sh --kernel "$kernel/bzImage" --out "$out" \
	--cpus 4 --mem 3072 --timeout $((duration + 300)) --fail-on-warn \
	--cmdline numa=fake=2 --add "$bins/convstress" \
	-- convstress --duration="$duration" ${seed:+--seed="$seed"}
