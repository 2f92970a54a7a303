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
# Output dir (<cache>/<key>/out): bzImage, vmlinux, vmlinux.h (not for
# the debug kernel, which has no BTF), config, System.map, series.sha,
# config.sha, key, build-time.
#
# FLAVOUR=custom is a kernel of your own: a Debian linux-source tarball
# (KSRC=path, or KSRC=VERSION such as 6.12 or 7.2: kernel/fetch-source.sh
# finds or downloads it) plus a series (PATCHES=a folder of *.patch, or
# an mbox as b4 am writes it, split with git mailsplit), configured with
# the project's fragment for its family (6.1: convbench.config, the v5
# series'; 6.12 and later: gmem-6.12.config) or KCONFIG=FRAGMENT. Its key
# hashes what the patches change (from their first diff on, without
# mail headers or signature), so a folder and an mbox of one series are
# one kernel; when a built main or gmem kernel has the same tarball,
# diffs and fragment, it is taken (hard links) instead of built again.
# The last custom settings are kept in the cache (custom.env): FLAVOUR=
# custom alone means that kernel again (./convbench, make vm).
#
#   kernel/build.sh --kind     print what the built kernel can run: v5
#                              (destructive, inplace), gmem, or none
#
# Environment: FLAVOUR (main, debug, gmem or custom, default main),
# CONVBENCH_CACHE (default /var/cache/convbench), CONVBENCH_KSRC (the
# source tarball of main and debug), CONVBENCH_KSRC_GMEM (gmem's), KSRC,
# PATCHES and KCONFIG (custom's), JOBS (default: all cores).
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

# the diffs of patch files: from each one's first diff on, without its
# mail headers and its "-- " signature; their hash
diffs_of() {
	local p
	for p in "$@"; do
		awk '/^(diff --git |--- |Index: )/ { on = 1 } /^-- $/ { on = 0 } on' "$p"
	done
}
diff_sha() { diffs_of "$@" | sha256sum | cut -c1-16; }

# what a built kernel can run, from its symbols and config: v5 (the
# private-memory series: destructive, inplace), gmem (guest_memfd and
# software-protected VMs) or none; convbench probes again at run time
kind_of() {
	if grep -q ' memfile_register_notifier$' "$1/System.map"; then
		echo v5
	elif grep -q ' kvm_gmem_create$' "$1/System.map" &&
		grep -qx 'CONFIG_KVM_SW_PROTECTED_VM=y' "$1/config"; then
		echo gmem
	else
		echo none
	fi
}

# FLAVOUR=custom: tarball, family, fragments and patches (split from an
# mbox when PATCHES is one) from KSRC, PATCHES and KCONFIG, or from the
# last custom build's settings
custom_settings() {
	local fam major minor f split n
	if [ -z "${KSRC:-}${PATCHES:-}${KCONFIG:-}" ] && [ -r "$cache/custom.env" ]; then
		# shellcheck disable=SC1091
		. "$cache/custom.env"
	fi
	[ -n "${KSRC:-}" ] && [ -n "${PATCHES:-}" ] || {
		echo "kernel/build.sh: FLAVOUR=custom needs KSRC (a linux-source tarball, or a Debian version such as 6.12 or 7.2) and PATCHES (a folder of *.patch or an mbox; an empty folder builds the tarball as it is)" >&2
		exit 2; }
	if [ -f "$KSRC" ]; then
		tarball=$(realpath "$KSRC")
	elif [[ $KSRC =~ ^[0-9]+\.[0-9]+(-rc[0-9]+)?$ ]]; then
		tarball=$("$here/fetch-source.sh" "$KSRC") || die "KSRC=$KSRC: no tarball"
	else
		echo "kernel/build.sh: KSRC expects a linux-source tarball or a version such as 6.12, got '$KSRC'" >&2
		exit 2
	fi
	srcpkg=$(basename "$tarball")
	# the family: from linux-source-X.Y's name, else the top Makefile
	fam=$(basename "$tarball" | sed -n 's/^linux-source-\([0-9]*\.[0-9]*\).*/\1/p')
	if [ -z "$fam" ]; then
		f=$(tar -tf "$tarball" 2>/dev/null | head -n 1 | cut -d/ -f1)
		fam=$(tar -xOf "$tarball" "$f/Makefile" 2>/dev/null |
			awk -F' = ' '/^VERSION =/ { v = $2 } /^PATCHLEVEL =/ { print v "." $2; exit }')
	fi
	if [ -n "${KCONFIG:-}" ]; then
		[ -r "$KCONFIG" ] || { echo "kernel/build.sh: KCONFIG=$KCONFIG: not a readable file" >&2; exit 2; }
		fragments=("$(realpath "$KCONFIG")")
	else
		major=${fam%%.*} minor=${fam#*.}
		if [ "$fam" = 6.1 ]; then
			fragments=("$here/config/convbench.config")
		elif [ -n "$fam" ] && { [ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 12 ]; }; }; then
			fragments=("$here/config/gmem-6.12.config")
		else
			echo "kernel/build.sh: no config fragment of the project for kernel ${fam:-of unknown version} ($tarball): give KCONFIG=FRAGMENT" >&2
			exit 2
		fi
	fi
	patches=()
	if [ -d "$PATCHES" ]; then
		for f in "$PATCHES"/*.patch "$PATCHES"/*.diff; do
			[ -e "$f" ] && [ -n "$(diffs_of "$f")" ] && patches+=("$(realpath "$f")")
		done
	elif [ -f "$PATCHES" ]; then
		# an mbox: one message per patch, in order (cover letter: no diff)
		split=$cache/custom-mbox/$(sha256sum < "$PATCHES" | cut -c1-16)
		if [ ! -f "$split/.done" ]; then
			rm -rf "$split"
			mkdir -p "$split"
			n=$(git mailsplit -o"$split" "$PATCHES") ||
				die "PATCHES=$PATCHES: git mailsplit could not split it (not an mbox?)"
			[ "$n" -gt 0 ] || die "PATCHES=$PATCHES: no message in it"
			touch "$split/.done"
		fi
		for f in "$split"/[0-9]*; do
			[ -n "$(diffs_of "$f")" ] && patches+=("$f")
		done
		[ ${#patches[@]} -gt 0 ] || die "PATCHES=$PATCHES: no message in it carries a diff"
	else
		echo "kernel/build.sh: PATCHES expects a folder of *.patch or an mbox, got '$PATCHES'" >&2
		exit 2
	fi
	custom_env=$(printf 'KSRC=%q\nPATCHES=%q\nKCONFIG=%q\n' "$tarball" \
		"$(realpath "$PATCHES")" "${KCONFIG:+$(realpath "$KCONFIG")}")
}

# the settings of this custom kernel, for FLAVOUR=custom alone
custom_remember() {
	printf '%s\n' "$custom_env" > "$cache/custom.env.tmp" &&
		mv "$cache/custom.env.tmp" "$cache/custom.env"
}

# a built main or gmem kernel of the same tarball, diffs and fragments:
# taken as this custom kernel's (hard links, its own key and flavour)
custom_reuse() {
	local f pd frags p pp k o
	for f in main gmem; do
		if [ $f = main ]; then
			pd=$here/patches frags=("$here/config/convbench.config")
			t=${CONVBENCH_KSRC:-/usr/src/linux-source-6.1.tar.xz}
		else
			pd=$here/patches-6.12 frags=("$here/config/gmem-6.12.config")
			t=${CONVBENCH_KSRC_GMEM:-/usr/src/linux-source-6.12.tar.xz}
		fi
		[ -r "$t" ] && [ "$(stat -c '%s %Y' "$t")" = "$src_id" ] || continue
		[ "$(cat "${frags[@]}" | sha256sum | cut -c1-16)" = "$config_sha" ] || continue
		pp=()
		for p in "$pd"/[0-9][0-9][0-9][0-9]-*.patch; do
			case ${p##*/} in 0000-*) ;; *) [ -e "$p" ] && pp+=("$p") ;; esac
		done
		[ "$(diff_sha "${pp[@]}")" = "$(diff_sha "${patches[@]}")" ] || continue
		k=$(printf '%s\n' "$src_id" "$(cat "${pp[@]}" /dev/null | sha256sum | cut -c1-16)" \
			"$config_sha" "$recipe" "$f" | sha256sum | cut -c1-16)
		o=$cache/$k/out
		[ -f "$o/done" ] || continue
		log "custom kernel $key: the same tarball, diffs and config as the built $f kernel $k: taking it"
		rm -rf "$dir"
		mkdir -p "$dir"
		cp -al "$o" "$out.tmp" 2>/dev/null || { rm -rf "$out.tmp"; cp -a "$o" "$out.tmp"; }
		[ -f "$out.tmp/kernel.release" ] ||
			cp "$cache/$k/build/include/config/kernel.release" "$out.tmp/" 2>/dev/null || true
		# files of its own, not links into the other kernel's
		rm -f "$out.tmp/key" "$out.tmp/flavour" "$out.tmp/series.sha" "$out.tmp/done"
		echo "$key" > "$out.tmp/key"
		echo custom > "$out.tmp/flavour"
		echo "$series_sha" > "$out.tmp/series.sha"
		echo "$f $k" > "$out.tmp/same-as"
		mv "$out.tmp" "$out"
		touch "$out/done"
		return 0
	done
	return 1
}

mode=build
case "${1:-}" in
"") ;;
--print) mode=print ;;
--key) mode=key ;;
--kind) mode=kind ;;
-h|--help) sed -n '3,46p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "kernel/build.sh: unknown option '$1' (expected --print, --key, --kind or nothing)" >&2; exit 2 ;;
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
custom) custom_settings ;;
*) echo "kernel/build.sh: FLAVOUR expects main, debug, gmem or custom, got '$flavour'" >&2; exit 2 ;;
esac

[ -r "$tarball" ] || die "no kernel source at $tarball (apt-get install $srcpkg, or run 'make deps' as root)"

# the series in order; the cover letter (0000) carries no code
if [ "$flavour" != custom ]; then
	patches=()
	for p in "$patchdir"/[0-9][0-9][0-9][0-9]-*.patch; do
		case ${p##*/} in 0000-*) ;; *) [ -e "$p" ] && patches+=("$p") ;; esac
	done
fi

series_sha=$(cat "${patches[@]}" /dev/null | sha256sum | cut -c1-16)
config_sha=$(cat "${fragments[@]}" | sha256sum | cut -c1-16)
# Bump when a change to this script changes what it builds.
recipe=2
# the tarball is identified by size and mtime (hashing 130 MB each time
# costs seconds)
src_id=$(stat -c '%s %Y' "$tarball")
if [ "$flavour" = custom ]; then
	# what the series changes, not how it was mailed
	key=$(printf '%s\n' "$src_id" "$(diff_sha "${patches[@]}")" "$config_sha" \
		"$recipe" "$flavour" | sha256sum | cut -c1-16)
else
	key=$(printf '%s\n' "$src_id" "$series_sha" "$config_sha" "$recipe" "$flavour" |
		sha256sum | cut -c1-16)
fi

dir=$cache/$key
out=$dir/out

case $mode in
key) echo "$key"; exit 0 ;;
print) [ -f "$out/done" ] || die "$flavour kernel $key not built (run make kernel${FLAVOUR:+ FLAVOUR=$flavour})"; echo "$out"; exit 0 ;;
kind) [ -f "$out/done" ] || die "$flavour kernel $key not built (run make kernel${FLAVOUR:+ FLAVOUR=$flavour})"
	kind_of "$out"; exit 0 ;;
esac

if [ -f "$out/done" ]; then
	log "cached $flavour kernel $key"
	[ "$flavour" != custom ] || custom_remember
	echo "$out"
	exit 0
fi
if [ "$flavour" = custom ] && custom_reuse; then
	custom_remember
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
main) eta="about 5 min" ;;
debug) eta="about 4 min" ;;
gmem) eta="about 5 min" ;;
custom) eta="6 to 17 min" ;;
esac
log "building the $flavour bzImage with $jobs jobs (cold: $eta on 2 cores; log in $dir/build.log)"
cc=gcc
if command -v ccache >/dev/null; then
	# every key has its own tree: hash paths relative to the cache so
	# that unchanged files hit across keys
	cc="ccache gcc"
	export CCACHE_BASEDIR=$cache CCACHE_NOHASHDIR=1
fi
# A kernel with debug info carries it for BTF, which takes the types and
# not where variables live: without GCC's variable tracking the objects
# compile 13-19% faster and the code is the same (.text compared byte
# for byte on arch/x86/kvm/x86.o).
kcflags=
if grep -qx 'CONFIG_DEBUG_INFO=y' "$build/.config"; then
	kcflags=-fno-var-tracking
fi
if ! mk -j"$jobs" CC="$cc" KCFLAGS="$kcflags" bzImage > "$dir/build.log" 2>&1; then
	tail -n 40 "$dir/build.log" >&2
	die "kernel build failed, full log: $dir/build.log"
fi

cp "$build/arch/x86/boot/bzImage" "$build/vmlinux" "$build/System.map" "$out/"
cp "$build/.config" "$out/config"
cp "$build/include/config/kernel.release" "$out/kernel.release"
# the debug kernel has no BTF (kernel/config/debug.config)
if command -v bpftool >/dev/null && grep -qx 'CONFIG_DEBUG_INFO_BTF=y' "$build/.config"; then
	bpftool btf dump file "$build/vmlinux" format c > "$out/vmlinux.h.tmp"
	mv "$out/vmlinux.h.tmp" "$out/vmlinux.h"
fi
echo "$series_sha" > "$out/series.sha"
echo "$config_sha" > "$out/config.sha"
echo "$key" > "$out/key"
echo "$flavour" > "$out/flavour"
echo $(( $(date +%s) - start )) > "$out/build-time"
touch "$out/done"
[ "$flavour" != custom ] || custom_remember
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
