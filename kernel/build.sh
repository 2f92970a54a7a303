#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build convbench's kernel: Debian's linux-source-6.1 + kernel/patches/ +
# kernel/config/convbench.config merged on tinyconfig, out of tree.
# FLAVOUR=debug adds kernel/config/debug.config on top (KASAN, lockdep,
# DEBUG_VM, init_on_free and the host paths the isolation tests try:
# io_uring, AIO, userfaultfd, process_vm_readv, NUMA, hwpoison); it is
# the same series, cached under its own key. FLAVOUR=gmem is the other
# kernel, for --mode=gmem: linux-source-6.12 + kernel/patches-6.12/ +
# kernel/config/gmem-6.12.config (guest_memfd as upstream merged it).
#
# The build lives in a cache outside the clone, keyed by a hash of the
# source tarball, the patches, the config fragment and a recipe version
# of this script, so a warm run is a lookup. Each key keeps its own build
# directory; ccache (when installed) shares unchanged objects between
# keys.
#
#   kernel/build.sh            build (or reuse) and print the output dir
#   kernel/build.sh --print    print the output dir, fail if not built
#   kernel/build.sh --key      print the cache key only
#
# Output dir (<cache>/<key>/out): bzImage, vmlinux, vmlinux.h, config,
# System.map, series.sha, config.sha, key, build-time.
#
# Environment: FLAVOUR (main, debug or gmem, default main), CONVBENCH_CACHE
# (default /var/cache/convbench), CONVBENCH_KSRC (the source tarball of
# main and debug), CONVBENCH_KSRC_GMEM (gmem's), JOBS (default: all cores).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# /var/cache for root (and CI), the user's cache otherwise
cache=${CONVBENCH_CACHE:-/var/cache/convbench}
if [ -z "${CONVBENCH_CACHE:-}" ] && ! mkdir -p "$cache" 2>/dev/null; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/convbench
fi
tarball=${CONVBENCH_KSRC:-/usr/src/linux-source-6.1.tar.xz}
jobs=${JOBS:-$(nproc)}

die() { echo "kernel/build.sh: $*" >&2; exit 1; }
log() { echo "kernel/build.sh: $*" >&2; }

mode=build
case "${1:-}" in
"") ;;
--print) mode=print ;;
--key) mode=key ;;
-h|--help) sed -n '3,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "kernel/build.sh: unknown option '$1' (expected --print, --key or nothing)" >&2; exit 2 ;;
esac

flavour=${FLAVOUR:-main}
fragments=("$here/config/convbench.config")
patchdir=$here/patches
srcpkg=linux-source-6.1
case $flavour in
main) ;;
debug) fragments+=("$here/config/debug.config") ;;
gmem) fragments=("$here/config/gmem-6.12.config")
	patchdir=$here/patches-6.12
	srcpkg=linux-source-6.12
	tarball=${CONVBENCH_KSRC_GMEM:-/usr/src/linux-source-6.12.tar.xz} ;;
*) echo "kernel/build.sh: FLAVOUR expects main, debug or gmem, got '$flavour'" >&2; exit 2 ;;
esac

[ -r "$tarball" ] || die "no kernel source at $tarball (apt-get install $srcpkg, or run 'make deps' as root)"

# the series in order; the cover letter (0000) carries no code
patches=()
for p in "$patchdir"/[0-9][0-9][0-9][0-9]-*.patch; do
	case ${p##*/} in 0000-*) ;; *) [ -e "$p" ] && patches+=("$p") ;; esac
done

series_sha=$(cat "${patches[@]}" /dev/null | sha256sum | cut -c1-16)
config_sha=$(cat "${fragments[@]}" | sha256sum | cut -c1-16)
# Bump when a change to this script changes what it builds.
recipe=1
# the tarball is identified by size and mtime (hashing 130 MB each time
# costs seconds)
src_id=$(stat -c '%s %Y' "$tarball")
key=$(printf '%s\n' "$src_id" "$series_sha" "$config_sha" "$recipe" "$flavour" |
	sha256sum | cut -c1-16)

dir=$cache/$key
out=$dir/out

case $mode in
key) echo "$key"; exit 0 ;;
print) [ -f "$out/done" ] || die "$flavour kernel $key not built (run make kernel${FLAVOUR:+ FLAVOUR=$flavour})"; echo "$out"; exit 0 ;;
esac

if [ -f "$out/done" ]; then
	log "cached $flavour kernel $key"
	echo "$out"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/lock"
flock -n 9 || { log "waiting for another kernel build to finish"; flock 9; }
if [ -f "$out/done" ]; then echo "$out"; exit 0; fi

start=$(date +%s)
src=$dir/src
build=$dir/build
if [ ! -f "$src/.convbench-patched" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	log "unpacking $(basename "$tarball") into $src"
	tar -C "$src" --strip-components=1 -xf "$tarball"
	for p in "${patches[@]}"; do
		log "applying $(basename "$p")"
		# no fuzz: a hunk that does not apply exactly is an error
		patch -d "$src" -p1 -F0 -s --no-backup-if-mismatch < "$p" ||
			die "patch $(basename "$p") does not apply"
	done
	touch "$src/.convbench-patched"
fi

mkdir -p "$build" "$out"
mk() { make -C "$src" O="$build" ARCH=x86_64 "$@"; }

log "configuring $flavour (tinyconfig + ${fragments[*]##*/})"
mk -s tinyconfig >"$dir/config.log" 2>&1
# merge_config reports every choice the fragment overrides: expected
"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" \
	"${fragments[@]}" >>"$dir/config.log" 2>&1
mk -s olddefconfig >>"$dir/config.log" 2>&1

# every option the fragments ask for must survive olddefconfig (a later
# fragment may override an earlier one: the last word counts)
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) grep -qx "$line" "$build/.config" || {
		log "config: $line did not stick (got: $(grep "^${line%%=*}=" "$build/.config" || echo unset))"
		missing=1; } ;;
	"# CONFIG_"*" is not set") name=${line#\# }; name=${name%% *}
		! grep -q "^$name=" "$build/.config" || {
		log "config: '$line' did not stick"; missing=1; } ;;
	esac
done < <(cat "${fragments[@]}" | awk '/^(CONFIG_[A-Za-z0-9_]*=|# CONFIG_[A-Za-z0-9_]* is not set)/ {
	name = $0; sub(/^# /, "", name); sub(/[= ].*/, "", name); last[name] = $0; order[++n] = name }
	END { for (i = 1; i <= n; i++) if (!seen[order[i]]++) print last[order[i]] }')
[ $missing = 0 ] || [ -n "${CONVBENCH_ALLOW_CONFIG_MISMATCH:-}" ] || die "config fragment not satisfied"

case $flavour in
main) eta="about 6 min" ;;
debug) eta="about 10 min" ;;
gmem) eta="about 11 min" ;;
esac
log "building the $flavour bzImage with $jobs jobs (cold: $eta on 2 cores; log in $dir/build.log)"
cc=gcc
if command -v ccache >/dev/null; then
	# every key has its own tree: hash paths relative to the cache so
	# that unchanged files hit across keys
	cc="ccache gcc"
	export CCACHE_BASEDIR=$cache CCACHE_NOHASHDIR=1
fi
if ! mk -j"$jobs" CC="$cc" bzImage > "$dir/build.log" 2>&1; then
	tail -n 40 "$dir/build.log" >&2
	die "kernel build failed, full log: $dir/build.log"
fi

cp "$build/arch/x86/boot/bzImage" "$build/vmlinux" "$build/System.map" "$out/"
cp "$build/.config" "$out/config"
if command -v bpftool >/dev/null; then
	bpftool btf dump file "$build/vmlinux" format c > "$out/vmlinux.h.tmp"
	mv "$out/vmlinux.h.tmp" "$out/vmlinux.h"
fi
echo "$series_sha" > "$out/series.sha"
echo "$config_sha" > "$out/config.sha"
echo "$key" > "$out/key"
echo "$flavour" > "$out/flavour"
echo $(( $(date +%s) - start )) > "$out/build-time"
touch "$out/done"
log "$flavour kernel $key built in $(cat "$out/build-time") s"

# keep the three newest keys of this flavour, drop older build trees
# (if, not &&: a key of another flavour last would fail the pipeline)
find "$cache" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' | sort -rn |
	cut -d' ' -f2- | while read -r d; do
	if [ "$(cat "$d/out/flavour" 2>/dev/null || echo main)" = "$flavour" ]; then
		echo "$d"
	fi
	done | tail -n +4 | while read -r old; do
	log "pruning old $flavour kernel cache $old"; rm -rf "$old"; done
echo "$out"
