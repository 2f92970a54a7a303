#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the project's kernel and run the in-VM tests (tests/vm/run-all.sh)
# on the binaries in $1 (default build/tests). The VM's console log and
# results stay in build/test-vm/<time>/.
set -euo pipefail
cd "$(dirname "$0")/.."

bins=${1:-build/tests}
kernel=$(kernel/build.sh --print) || { echo "vm-suite: build the kernel first (make kernel)"; exit 1; }
mkdir -p build/test-vm
out=$(mktemp -d "build/test-vm/$(date +%Y%m%d-%H%M%S)-XXXX")
rmdir "$out"	# run-vm.sh creates it and refuses an existing one
# CONVBENCH_REQUIRE_SERIES: in our kernel a missing series is a failure
exec kernel/vm/run-vm.sh --kernel "$kernel/bzImage" --out "$out" \
	--timeout "${VM_TIMEOUT:-900}" --add-dir "$bins:/tests" \
	-- sh -c 'CONVBENCH_REQUIRE_SERIES=1 /tests/run-all.sh'
