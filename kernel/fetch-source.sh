#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian linux-source tarball of any version Debian carries, for a
# custom kernel (kernel/build.sh FLAVOUR=custom KSRC=VERSION): the
# machine's own /usr/src/linux-source-VERSION.tar.xz when installed,
# else linux-source-VERSION downloaded with apt-get under a private
# sources list, list and cache folder (bookworm, bookworm-backports,
# sid, experimental: bookworm has 6.1 and 6.12, sid 7.2, experimental
# 7.3-rc7 as of late 2026), so the machine's apt configuration is never
# touched and no root is needed. The tarball is unpacked from the .deb
# into the cache and its path printed.
#
#   kernel/fetch-source.sh VERSION     e.g. 6.12, 7.2, 7.3-rc7 (the
#                                      package linux-source-7.3 at 7.3~rc7)
#
# Environment: CONVBENCH_CACHE (default /var/cache/convbench, else the
# user's cache), CONVBENCH_DEBIAN_MIRROR (default http://deb.debian.org/debian).
# Exit status: 0 with the tarball's path on stdout, 1 when no suite has
# the package (or the download failed), 2 for a malformed VERSION.
set -euo pipefail

die() { echo "kernel/fetch-source.sh: $*" >&2; exit 1; }
log() { echo "kernel/fetch-source.sh: $*" >&2; }

ver=${1:-}
[[ $ver =~ ^[0-9]+\.[0-9]+(-rc[0-9]+)?$ ]] || {
	echo "kernel/fetch-source.sh: expected a kernel version such as 6.12, 7.2 or 7.3-rc7, got '$ver'" >&2
	exit 2
}
# an -rc is the package of its release, at a version holding ~rcN
# (experimental's linux-source-7.3 is 7.3~rc7-1~exp1)
pkg=linux-source-${ver%-rc*}
rc=
[ "$pkg" = "linux-source-$ver" ] || rc="~${ver#*-}"

if [ -z "$rc" ] && [ -r "/usr/src/$pkg.tar.xz" ]; then
	echo "/usr/src/$pkg.tar.xz"
	exit 0
fi

cache=${CONVBENCH_CACHE:-/var/cache/convbench}
if [ -z "${CONVBENCH_CACHE:-}" ] && ! mkdir -p "$cache" 2>/dev/null; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/convbench
fi
dest=$cache/sources/linux-source-$ver.tar.xz
if [ -r "$dest" ]; then
	echo "$dest"
	exit 0
fi
command -v apt-get >/dev/null || die "no apt-get here: put $pkg.tar.xz in /usr/src or give KSRC=path/to/tarball"
mkdir -p "$cache/sources"
apt=$(mktemp -d "$cache/sources/apt.XXXXXX")
trap 'rm -rf "$apt"' EXIT
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/etc/preferences.d"
mirror=${CONVBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "no $keyring (apt-get install debian-archive-keyring)"
{
	for suite in bookworm bookworm-updates bookworm-backports sid experimental; do
		echo "deb [signed-by=$keyring] $mirror $suite main"
	done
	echo "deb [signed-by=$keyring] ${CONVBENCH_DEBIAN_SECURITY:-http://deb.debian.org/debian-security} bookworm-security main"
} > "$apt/sources.list"
opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$apt/etc/preferences.d"
	-o "Dir::State::Lists=$apt/lists" -o "Dir::State::Status=/dev/null"
	-o "Dir::Cache=$apt/cache" -o "Debug::NoLocking=1" -o "APT::Get::List-Cleanup=0"
	-o "Acquire::Languages=none" -o "APT::Architecture=$(dpkg --print-architecture)")
log "looking for $pkg in Debian's bookworm, bookworm-backports, sid and experimental ($mirror)"
if ! timeout 600 apt-get "${opts[@]}" -qq update >"$apt/update.log" 2>&1; then
	tail -n 5 "$apt/update.log" >&2
	die "apt-get update of the private sources list failed (no network to $mirror?)"
fi
# the newest version any suite has (experimental is not pinned down here)
debver=$(apt-cache "${opts[@]}" madison "$pkg" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
	grep -F -- "$rc" | sort -V | tail -n 1)
[ -n "$debver" ] || die "no suite of $mirror has $pkg${rc:+ at a version with $rc} (bookworm has 6.1 and 6.12; sid and experimental the newest)"
log "downloading $pkg $debver (about 150 MB)"
(cd "$apt" && timeout 1800 apt-get "${opts[@]}" -qq download "$pkg=$debver") >"$apt/download.log" 2>&1 || {
	tail -n 5 "$apt/download.log" >&2
	die "apt-get download $pkg=$debver failed"
}
deb=$(ls "$apt"/"${pkg}"_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || die "apt-get download left no .deb"
dpkg-deb -x "$deb" "$apt/x"
tarball=$(ls "$apt/x/usr/src/$pkg".tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || die "$deb holds no usr/src/$pkg.tar.*"
mv "$tarball" "$dest.tmp" && mv "$dest.tmp" "$dest"
echo "$debver" > "$cache/sources/linux-source-$ver.version"
log "$pkg $debver: $dest"
echo "$dest"
