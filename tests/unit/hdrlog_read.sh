#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run tests/unit/hdrlog_read.js (hdr-histogram-js, a third-party reader
# of HdrHistogram logs) on a log and its samples. hdr-histogram-js is
# installed from the npm registry on first use, at a pinned version with
# pinned dependencies, into a cache outside the clone:
#   $CONVBENCH_NPM_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/convbench/npm
#
#   tests/unit/hdrlog_read.sh LOG SAMPLES
#
# Exit 4 with a "SKIP: reason" line when Node.js or the package cannot be
# had; otherwise the reader's exit code (0 all ok, 1 a check failed,
# 124 timed out after 2 minutes).

PKGS="hdr-histogram-js@3.0.1 pako@1.0.11 base64-js@1.5.1 @assemblyscript/loader@0.19.23"
here=$(dirname "$0")

skip() {
	echo "SKIP: $*"
	exit 4
}

if [ -n "${CONVBENCH_NPM_CACHE:-}" ]; then
	cache=$CONVBENCH_NPM_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	cache=$XDG_CACHE_HOME/convbench/npm
elif [ -n "${HOME:-}" ]; then
	cache=$HOME/.cache/convbench/npm
else
	cache=/var/cache/convbench/npm
fi
dir=$cache/hdr-histogram-js-3.0.1
mods=$dir/node_modules

command -v node >/dev/null 2>&1 || skip "no node (Node.js) on PATH: apt-get install nodejs npm"
if [ ! -f "$mods/hdr-histogram-js/package.json" ]; then
	command -v npm >/dev/null 2>&1 ||
		skip "hdr-histogram-js is not in $dir and there is no npm: apt-get install npm"
	mkdir -p "$cache" || skip "cannot create the npm cache folder $cache"
	tmp=$(mktemp -d "$dir.XXXXXX") || skip "cannot create a folder in $cache"
	# --prefix: a folder of its own, nothing global; --no-save: no package.json
	if ! timeout 600 npm install --prefix "$tmp" --no-save --no-audit --no-fund \
			--no-package-lock $PKGS >"$tmp/npm.log" 2>&1; then
		tail -n 5 "$tmp/npm.log" | sed 's/^/# npm: /'
		rm -rf "$tmp"
		skip "npm install $PKGS failed (registry unreachable?)"
	fi
	# a concurrent run may have won: keep its copy
	mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
fi
[ -f "$mods/hdr-histogram-js/package.json" ] || skip "hdr-histogram-js missing from $dir"
echo "# reader: hdr-histogram-js $(sed -n 's/^  "version": "\(.*\)",$/\1/p' \
	"$mods/hdr-histogram-js/package.json") from $dir, node $(node --version)"
# a bad log can send a reader into a long loop: 124 after 2 minutes
exec timeout 120 node "$here/hdrlog_read.js" "$mods" "$@"
