#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A soak, outside make test: two vCPUs converting their own ranges of one
# private fd in place (convbench --workload=churn --mode=inplace
# --vcpus=2), RUNS times on the debug kernel. On the kernel before patches
# 46-47 every loop ended within 2-15 runs with "BUG: KASAN: double-free"
# of a maple_node in mt_free_walk(), the RCU callback freeing the VM's
# record of software-private gfns (a full node's last child mangled by
# the free walk); with them, 80 runs in a row passed. test_private_record
# provokes that bug directly, and test_churn.sh (in the debug suite) runs
# this workload once.
#
#   tests/stress/repro-inplace-smp.sh [RUNS]     (default 20)
#
# Boots the debug kernel (make kernel-debug) with build/bench/convbench;
# exit 1 at the first kernel report (run-vm.sh prints it), 0 when RUNS
# runs ended without one, 2 on bad input.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
runs=${1:-20}
case $runs in ''|0|*[!0-9]*) echo "repro-inplace-smp.sh: RUNS expects a whole number from 1, got '$runs'" >&2; exit 2 ;; esac
cb=build/bench/convbench
[ -x "$cb" ] || { echo "repro-inplace-smp.sh: build convbench first (make convbench)" >&2; exit 2; }
kdir=$(FLAVOUR=debug kernel/build.sh --print) || exit 2
out=$(mktemp -d "${TMPDIR:-/tmp}/repro-inplace-smp.XXXXXX")
cat > "$out/loop.sh" <<LOOP
i=0
while [ \$i -lt $runs ]; do
	i=\$((i + 1))
	convbench --workload=churn --mode=inplace --vcpus=2 --rounds=1 \\
		--churn-range=8M --churn-ops=100 --churn-interval=50 \\
		--stall-timeout=30 --out=/tmp/run\$i >/dev/null 2>&1 ||
		echo "repro: run \$i: convbench exited \$?"
	rm -rf /tmp/run\$i
	if dmesg | grep -q 'BUG:'; then echo "repro: kernel report after run \$i"; exit 1; fi
	echo "repro: run \$i clean"
done
LOOP
kernel/vm/run-vm.sh --kernel "$kdir/bzImage" --out "$out/vm" --mem 3072 \
	--timeout $((60 + 60 * runs)) --add "$cb" --add "$out/loop.sh" -- sh /bin/loop.sh
rc=$?
echo "repro-inplace-smp.sh: console in $out/vm/console.log"
case $rc in
0) echo "repro-inplace-smp.sh: $runs runs, no kernel report"; exit 0 ;;
*) exit 1 ;;
esac
