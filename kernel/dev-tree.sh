#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Work on the kernel series as git commits, then export it back.
#
#   kernel/dev-tree.sh DIR          unpack linux-source-6.1 into DIR as a
#                                   git tree and `git am` kernel/patches/
#   kernel/dev-tree.sh --export DIR write DIR's commits since the base as
#                                   kernel/patches/ (git format-patch),
#                                   keeping the cover letter's subject
#                                   and text, and run checkpatch --strict
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tarball=${CONVBENCH_KSRC:-/usr/src/linux-source-6.1.tar.xz}
base_msg="convbench base: Debian linux-source-6.1"

usage() { sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

case "${1:-}" in
--export)
	[ $# = 2 ] || usage
	dir=$2
	# the root commit is the unpatched tree
	base=$(git -C "$dir" rev-list --max-parents=0 HEAD)
	cover=$here/patches/0000-cover-letter.patch
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	[ -f "$cover" ] && cp "$cover" "$tmp/old-cover"
	rm -f "$here"/patches/*.patch
	git -C "$dir" format-patch -q --zero-commit --cover-letter -o "$here/patches" "$base"..HEAD
	if [ -f "$tmp/old-cover" ]; then
		# carry the subject line and the blurb over to the new cover
		python3 - "$tmp/old-cover" "$cover" <<'PY'
import re, sys
old = open(sys.argv[1]).read()
new = open(sys.argv[2]).read()
subj = re.search(r'^Subject: \[PATCH[^\]]*\] (.*)$', old, re.M).group(1)
body = old.split('\n\n', 1)[1]
blurb = re.split(r'\n\n[^\n]+ \(\d+\):\n', body, 1)[0]
new = re.sub(r'\*\*\* SUBJECT HERE \*\*\*', subj, new)
new = new.replace('*** BLURB HERE ***', blurb)
open(sys.argv[2], 'w').write(new)
PY
	fi
	for p in "$here"/patches/0*.patch; do
		case ${p##*/} in 0000-*) continue ;; esac
		"$dir/scripts/checkpatch.pl" --strict -q "$p" || true
	done
	;;
""|-h|--help) usage ;;
-*) echo "dev-tree: unknown option '$1'" >&2; usage ;;
*)
	dir=$1
	[ ! -e "$dir" ] || { echo "dev-tree: $dir exists" >&2; exit 2; }
	mkdir -p "$dir"
	tar -C "$dir" --strip-components=1 -xf "$tarball"
	cd "$dir"
	# Debian's .gitignore ignores the whole top level
	sed -i '/^# Debian packaging/,$d' .gitignore
	git init -q
	git add -A
	git commit -q -m "$base_msg"
	for p in "$here"/patches/0*.patch; do
		case ${p##*/} in 0000-*) continue ;; esac
		git am -q "$p"
	done
	git log --oneline | head -n 3
	;;
esac
