#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot the project's 6.1 kernel and run convbench over the
# default matrix in the v5 modes (destructive, inplace), then boot the
# 6.12 kernel and run the same matrix in gmem mode (guest_memfd as
# merged); in each boot with BPF probes, then without for the overhead,
# and hyperfine timings of whole runs. Everything comes out into a new
# results/<date>-<kernel>-<series>/ folder (the gmem boot's files in its
# gmem/ subfolder, with their own provenance). Never reuses a folder.
#
#   bench/run-bench.sh [--iterations N] [--sizes LIST] [--out-root DIR]
#
# Needs: make kernel kernel-gmem and build/bench/convbench (with --trace
# built in). BENCH_MODES=v5 or gmem runs one boot only.
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

kdir=$(FLAVOUR=main kernel/build.sh --print)
boots=${BENCH_MODES:-v5,gmem}
case $boots in
v5|gmem|v5,gmem|gmem,v5) ;;
*) echo "run-bench: BENCH_MODES expects v5, gmem or v5,gmem, got '$boots'" >&2; exit 2 ;;
esac
case ,$boots, in
*,gmem,*) gkdir=$(FLAVOUR=gmem kernel/build.sh --print) ;;
esac
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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/convbench-vm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# a JSON string: backslashes and double quotes escaped (vm.env's values
# are printable, control characters aside)
json_str() {
	local v=${1//\\/\\\\}
	v=${v//\"/\\\"}
	printf '"%s"' "$v"
}

# DEST/meta.json: the VM runner's vm.env (sourced, so its shell quoting
# is undone) and the kernel's provenance
meta_json() {	# DEST KDIR
	local dest=$1 k=$2 key sep=
	{
		echo '{'
		echo '  "vm": {'
		for key in $(sed -n 's/^\([a-z_0-9]*\)=.*/\1/p' "$dest/vm.env"); do
			printf '%s    "%s": %s' "$sep" "$key" \
				"$(json_str "$(. "$dest/vm.env"; eval "printf '%s' \"\$$key\"")")"
			sep=$',\n'
		done
		echo
		echo '  },'
		echo "  \"kernel_cache_key\": $(json_str "$(cat "$k/key")"),"
		echo "  \"series_sha\": $(json_str "$(cat "$k/series.sha")"),"
		echo "  \"config_sha\": $(json_str "$(cat "$k/config.sha")"),"
		echo "  \"convbench_git\": $(json_str "$(git describe --always --dirty 2>/dev/null || echo unknown)"),"
		echo "  \"host_cpu\": $(json_str "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')")"
		echo '}'
	} > "$dest/meta.json.tmp" && mv "$dest/meta.json.tmp" "$dest/meta.json"
}

# boot KDIR, run vm-bench.sh with MODES, keep what came out in DEST
# (also from a failed run); returns the VM run's status
boot() {	# KDIR MODES DEST
	local k=$1 modes=$2 dest=$3 vmout=$tmp/${2//,/-} rc f
	say "booting $(cat "$k/../build/include/config/kernel.release" 2>/dev/null || echo "$k") and running the matrix ($sizes, $iterations conversions per cell, --mode=$modes); this takes a few minutes under TCG"
	set +e
	kernel/vm/run-vm.sh --kernel "$k/bzImage" --out "$vmout" \
		--timeout "${BENCH_TIMEOUT:-3000}" --mem 4096 "${adds[@]}" \
		--cmdline "convbench.series=$(cat "$k/series.sha") convbench.config=$(cat "$k/config.sha") convbench.kernel_key=$(cat "$k/key")" \
		-- sh /bin/vm-bench.sh "$sizes" "$iterations" "$modes" | sed 's/^/  | /' >&2
	rc=${PIPESTATUS[0]}
	set -e
	mkdir -p "$dest"
	for f in summary.json samples.csv hist.csv histograms.txt; do
		[ -f "$vmout/run/$f" ] && cp "$vmout/run/$f" "$dest/"
	done
	for f in trace.csv trace.txt; do
		[ -f "$vmout/run-traced/$f" ] && cp "$vmout/run-traced/$f" "$dest/"
	done
	[ -f "$vmout/run-traced/samples.csv" ] &&
		cp "$vmout/run-traced/samples.csv" "$dest/samples-traced.csv"
	for f in hyperfine.json hyperfine.txt hyperfine-stderr.txt convbench.txt traced.txt; do
		[ -f "$vmout/$f" ] && cp "$vmout/$f" "$dest/"
	done
	[ -f "$dest/samples-traced.csv" ] && [ -f "$dest/trace.csv" ] &&
		bench/overhead.sh "$dest" >"$dest/overhead.txt"
	cp "$vmout/console.log" "$vmout/vm.env" "$dest/" 2>/dev/null || true
	[ -f "$dest/summary.json" ] && meta_json "$dest" "$k"
	return "$rc"
}

rc=0
case ,$boots, in
*,v5,*) boot "$kdir" destructive,inplace "$run" || rc=$? ;;
esac
# the third column: another kernel and another boot, files in gmem/
case ,$boots, in
*,gmem,*) boot "$gkdir" gmem "$run/gmem" || { r=$?; [ "$rc" != 0 ] || rc=$r; } ;;
esac
if [ "$rc" != 0 ]; then
	say "the VM run failed (status $rc); partial results are in $run"
	exit 1
fi
echo "$run"
