#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the project's kernel and run the in-VM tests (tests/vm/run-all.sh)
# on the binaries in $1 (default build/tests). The VM's console log and
# results stay in build/test-vm/<time>/. Any kernel report in the guest's
# dmesg (WARNING, BUG, KASAN, lockdep) fails the suite.
#
# FLAVOUR=debug runs them on the debug kernel (make kernel FLAVOUR=debug):
# KASAN, lockdep and the host paths the isolation tests try (io_uring,
# AIO, userfaultfd, NUMA with numa=fake=2, hwpoison). FLAVOUR=gmem
# boots the 6.12 kernel (guest_memfd) instead. TESTS="a b" runs only
# those tests; VM_CMDLINE adds kernel parameters (kvm.tdp_mmu=0).
set -euo pipefail
cd "$(dirname "$0")/.."

bins=${1:-build/tests}
flavour=${FLAVOUR:-main}
kernel=$(FLAVOUR=$flavour kernel/build.sh --print) ||
	{ echo "vm-suite: build the $flavour kernel first (make kernel FLAVOUR=$flavour)"; exit 1; }
extra=()
timeout=${VM_TIMEOUT:-900}
case $flavour in
debug) extra=(--cmdline numa=fake=2 --mem 3072); timeout=${VM_TIMEOUT:-1800} ;;
esac
# VM_CMDLINE: more kernel parameters, e.g. kvm.tdp_mmu=0
[ -z "${VM_CMDLINE:-}" ] || extra+=(--cmdline "$VM_CMDLINE")
mkdir -p build/test-vm
out=$(mktemp -d "build/test-vm/$(date +%Y%m%d-%H%M%S)-$flavour-XXXX")
rmdir "$out"	# run-vm.sh creates it and refuses an existing one
# CONVBENCH_REQUIRE_SERIES: in our kernel a missing series is a failure
exec kernel/vm/run-vm.sh --kernel "$kernel/bzImage" --out "$out" \
	--timeout "$timeout" --fail-on-warn "${extra[@]}" \
	--add-dir "$bins:/tests" \
	-- sh -c "CONVBENCH_REQUIRE_SERIES=1 ${STRESS_S:+STRESS_S=$STRESS_S }${TESTS:+TESTS='$TESTS' }/tests/run-all.sh"
