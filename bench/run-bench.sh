#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot the project's kernel, run convbench over the default
# matrix in both modes (with BPF probes, then without for the overhead),
# time whole runs with hyperfine, and bring everything out into a new
# results/<date>-<kernel>-<series>/ folder. Never reuses a folder.
#
#   bench/run-bench.sh [--iterations N] [--sizes LIST] [--out-root DIR]
#
# Needs: make kernel and build/bench/convbench (with --trace built in).
set -euo pipefail
cd "$(dirname "$0")/.."

iterations=${BENCH_ITERATIONS:-1000}
sizes=${BENCH_SIZES:-4K,64K,2M}
root=results

while [ $# -gt 0 ]; do
	case $1 in
	--iterations) iterations=${2:?--iterations needs a number}; shift 2 ;;
	--sizes) sizes=${2:?--sizes needs a list such as 4K,2M}; shift 2 ;;
	--out-root) root=${2:?--out-root needs a folder}; shift 2 ;;
	*) echo "run-bench: unknown option '$1' (expected --iterations, --sizes or --out-root)" >&2; exit 2 ;;
	esac
done
case $iterations in ''|*[!0-9]*) echo "run-bench: --iterations expects a whole number, got '$iterations'" >&2; exit 2 ;; esac

say() { echo "bench: $*" >&2; }

kdir=$(kernel/build.sh --print)
cb=build/bench/convbench
[ -x "$cb" ] || { say "build convbench first (make convbench)"; exit 1; }

release=$(cat "$kdir/../build/include/config/kernel.release" 2>/dev/null || echo unknown)
series=$(cat "$kdir/series.sha")
stamp=$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$root"
run=$root/$stamp-$release-$series
n=1
while ! mkdir "$run" 2>/dev/null; do	# never reuse a folder
	n=$((n + 1))
	run=$root/$stamp-$release-$series-$n
done
say "results go to $run"

adds=(--add "$cb" --add bench/vm-bench.sh)
# hyperfine is dynamically linked: bring its loader and libraries along
if hf=$(command -v hyperfine); then
	adds+=(--add "$hf")
	while read -r lib; do
		adds+=(--add "$lib:$lib")
	done < <(ldd "$hf" | grep -oE '/[^ ]+\.so[^ ]*' | sort -u)
else
	say "no hyperfine: whole-run timings skipped"
fi

vmout=$(mktemp -d "${TMPDIR:-/tmp}/convbench-vm.XXXXXX")
rmdir "$vmout"
trap 'rm -rf "$vmout"' EXIT
say "booting the kernel and running the matrix ($sizes, $iterations conversions per cell, both modes); this takes a few minutes under TCG"
set +e
kernel/vm/run-vm.sh --kernel "$kdir/bzImage" --out "$vmout" \
	--timeout "${BENCH_TIMEOUT:-3000}" --mem 4096 "${adds[@]}" \
	--cmdline "convbench.series=$series convbench.config=$(cat "$kdir/config.sha") convbench.kernel_key=$(cat "$kdir/key")" \
	-- sh /bin/vm-bench.sh "$sizes" "$iterations" | sed 's/^/  | /' >&2
rc=${PIPESTATUS[0]}
set -e

# keep whatever came out, even from a failed run
for f in summary.json samples.csv hist.csv histograms.txt; do
	[ -f "$vmout/run/$f" ] && cp "$vmout/run/$f" "$run/"
done
for f in trace.csv trace.txt; do
	[ -f "$vmout/run-traced/$f" ] && cp "$vmout/run-traced/$f" "$run/"
done
[ -f "$vmout/run-traced/samples.csv" ] &&
	cp "$vmout/run-traced/samples.csv" "$run/samples-traced.csv"
for f in hyperfine.json hyperfine.txt hyperfine-stderr.txt convbench.txt traced.txt; do
	[ -f "$vmout/$f" ] && cp "$vmout/$f" "$run/"
done
[ -f "$run/samples-traced.csv" ] && [ -f "$run/trace.csv" ] &&
	bench/overhead.sh "$run" >"$run/overhead.txt"
cp "$vmout/console.log" "$vmout/vm.env" "$run/" 2>/dev/null || true
if [ -f "$run/summary.json" ]; then
	# meta.json: convbench's provenance plus the VM runner's
	{
		echo '{'
		echo '  "vm": {'
		sed -E 's/^([a-z_0-9]+)=(.*)$/    "\1": "\2",/; s/'"'"'//g' "$run/vm.env" | sed '$ s/,$//'
		echo '  },'
		echo '  "kernel_cache_key": "'"$(cat "$kdir/key")"'",'
		echo '  "series_sha": "'"$series"'",'
		echo '  "config_sha": "'"$(cat "$kdir/config.sha")"'",'
		echo '  "convbench_git": "'"$(git describe --always --dirty 2>/dev/null || echo unknown)"'",'
		echo '  "host_cpu": "'"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"'"'
		echo '}'
	} > "$run/meta.json.tmp" && mv "$run/meta.json.tmp" "$run/meta.json"
fi
if [ "$rc" != 0 ]; then
	say "the VM run failed (status $rc); partial results are in $run"
	exit 1
fi
echo "$run"
