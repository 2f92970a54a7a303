#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What ./convbench runs on a kernel without the private-memory series
# (bench/vm/vm_exec.c): the same convbench command in the project's kernel
# under QEMU (kernel/vm/run-vm.sh), its stdout and stderr passed on as
# they come, the guest's --out brought back to the host's, convbench's
# exit status as ours. It never builds a kernel: without one it says
# which command does, and exits 4.
#
#   bench/vm/run-in-vm.sh --cpus N --mem MB --timeout S --why TEXT
#                      [--out HOSTDIR] -- CONVBENCH ARGS...
#
# convbench has checked the arguments and claimed HOSTDIR (empty);
# ARGS carry --no-vm and --out=/out/run for the guest. Environment:
# FLAVOUR (main, debug or gmem: convbench sets gmem for --mode=gmem;
# custom: the last kernel built with make kernel FLAVOUR=custom),
# CONVBENCH_CACHE, CONVBENCH_ACCEL, CONVBENCH_PROGRESS.
# Exit: convbench's status; 4 no kernel; 124 hung, 125 panic, 126 the
# VM gave no status (kernel/vm/README.md), the VM's folder kept.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
say() { echo "convbench: $*" >&2; }

cpus=2 mem=2048 timeout=86400 why='this kernel lacks the private-memory series' out=
while (($#)); do
	case $1 in
	--cpus) cpus=$2 ;;
	--mem) mem=$2 ;;
	--timeout) timeout=$2 ;;
	--why) why=$2 ;;
	--out) out=$2 ;;
	--) shift; break ;;
	*) say "run-in-vm: unknown option '$1' (this script is run by convbench)"; exit 2 ;;
	esac
	shift 2
done
if (($# < 1)) || [[ ! -x $1 ]]; then
	say "run-in-vm: expected -- CONVBENCH ARGS..."
	exit 2
fi
exe=$1
shift

flavour=${FLAVOUR:-main}
if ! kdir=$(cd "$top" && kernel/build.sh --print 2>/dev/null); then
	# cold build times on 2 cores (kernel/build.sh)
	case $flavour in
	main) build="make kernel" eta="about 6 minutes" ;;
	debug) build="make kernel-debug" eta="about 10 minutes" ;;
	gmem) build="make kernel-gmem" eta="about 11 minutes" ;;
	custom) build="make kernel FLAVOUR=custom KSRC=... PATCHES=..." eta="6 to 17 minutes" ;;
	*) build="make kernel FLAVOUR=$flavour" eta="minutes" ;;
	esac
	say "${why%% (*} (host kernel $(uname -r)),"
	say "and the project's $flavour kernel is not built: '$build' in $top builds"
	say "it once ($eta on 2 cores, a minute or two with a warm ccache; cached"
	say "outside the tree), then run this again"
	exit 4
fi
# the output folder's (kernel/build.sh), else the build tree's
release=$(cat "$kdir/kernel.release" 2>/dev/null ||
	cat "$kdir/../build/include/config/kernel.release" 2>/dev/null) || release=
release=${release:-6.1}
accel=$("$top/kernel/vm/run-vm.sh" --which-accel) || exit 4
kname=kernel
[[ $flavour == main ]] || kname="$flavour kernel"
say "${why%% (*} (host kernel $(uname -r)): running in the project's $kname $release under QEMU ($accel, $cpus CPUs, $mem MB); --no-vm to run here"

work=$(mktemp -d "${TMPDIR:-/tmp}/convbench-vm.XXXXXX")
keep=0
trap '((keep)) || rm -rf -- "$work"' EXIT
vmout=$work/vm

# progress as the host's terminal wants it, not the guest's serial port
progress=lines
[[ -t 2 ]] && progress="tty"
# run-vm in a process group of its own (set -m): a Ctrl-C reaches this
# script only, which passes it on once; run-vm sends it to convbench in
# the guest, which stops within a second and writes what it measured
set -m
"$top/kernel/vm/run-vm.sh" --kernel "$kdir/bzImage" --out "$vmout" --quiet \
	--split-stderr --pass-signals --cpus "$cpus" --mem "$mem" --timeout "$timeout" \
	--add "$exe:/bin/convbench" --env "CONVBENCH_PROGRESS=${CONVBENCH_PROGRESS:-$progress}" \
	--cmdline "convbench.series=$(cat "$kdir/series.sha") convbench.config=$(cat "$kdir/config.sha") convbench.kernel_key=$(cat "$kdir/key")" \
	-- convbench "$@" &
vm_pid=$!
set +m
trap 'kill -INT "$vm_pid" 2>/dev/null' INT
trap 'kill -TERM "$vm_pid" 2>/dev/null' TERM
set +e
while wait "$vm_pid"; rc=$?; ((rc > 128)) && kill -0 "$vm_pid" 2>/dev/null; do :; done
set -e

# the guest's --out: each file through a temporary name, summary.json
# last (it marks a complete run)
if [[ -n $out && -d $vmout/run ]]; then
	for f in "$vmout"/run/*; do
		[[ ${f##*/} == summary.json ]] && continue
		cp -r -- "$f" "$out/.${f##*/}.tmp" && mv -- "$out/.${f##*/}.tmp" "$out/${f##*/}"
	done
	if [[ -f $vmout/run/summary.json ]]; then
		cp -- "$vmout/run/summary.json" "$out/.summary.json.tmp" &&
			mv -- "$out/.summary.json.tmp" "$out/summary.json"
	fi
fi
if ((rc >= 124 && rc <= 126)) && [[ ! -f $vmout/.exit-status ]]; then
	# shellcheck disable=SC2034 # read by the EXIT trap
	keep=1
	say "the VM failed (status $rc, kernel/vm/README.md); its console log is kept: $vmout/console.log"
fi
exit "$rc"
