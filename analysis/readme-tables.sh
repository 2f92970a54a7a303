#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The README's tables, generated from committed runs: every block
#
#   <!-- convreport --markdown=WHAT [--repeat=DIR] RUN -->
#   ...
#   <!-- end -->
#
# holds what that convreport command prints (analysis/markdown.h), run
# from the repository's root.
#
#   readme-tables.sh CONVREPORT README          rewrite the blocks
#   readme-tables.sh --check CONVREPORT README  exit 1 naming each block
#                                               that differs (a number
#                                               no committed run holds)
#
# Exit status: 0 ok, 1 a block differs or its command failed, 2 usage.
check=0
if [ "$1" = --check ]; then
	check=1
	shift
fi
if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -f "$2" ]; then
	echo "usage: $0 [--check] CONVREPORT README (an executable and a file)" >&2
	exit 2
fi
cr=$1
readme=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

nblocks=0
bad=0
failed=0
inblock=0
: >"$tmp/new"
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	'<!-- convreport '*' -->')
		if [ $inblock = 1 ]; then
			echo "$readme: a block opens inside another: $line" >&2
			exit 1
		fi
		printf '%s\n' "$line" >>"$tmp/new"
		args=${line#<!-- convreport }
		args=${args% -->}
		nblocks=$((nblocks + 1))
		: >"$tmp/old"
		# shellcheck disable=SC2086 # the marker's words are the arguments
		if ! "$cr" $args >"$tmp/gen" 2>"$tmp/err"; then
			echo "$readme: convreport $args failed: $(cat "$tmp/err")" >&2
			failed=$((failed + 1))
		fi
		cat "$tmp/gen" >>"$tmp/new"
		inblock=1
		;;
	'<!-- end -->')
		if [ $inblock = 1 ] && ! cmp -s "$tmp/old" "$tmp/gen"; then
			[ $check = 1 ] &&
				echo "$readme: the block of 'convreport $args' is not what it prints:" >&2 &&
				diff "$tmp/old" "$tmp/gen" | sed 's/^/  /' | head -n 20 >&2
			bad=$((bad + 1))
		fi
		inblock=0
		printf '%s\n' "$line" >>"$tmp/new"
		;;
	*)
		if [ $inblock = 1 ]; then
			printf '%s\n' "$line" >>"$tmp/old"
		else
			printf '%s\n' "$line" >>"$tmp/new"
		fi
		;;
	esac
done <"$readme"
if [ $inblock = 1 ]; then
	echo "$readme: the last block has no '<!-- end -->'" >&2
	exit 1
fi
if [ $check = 1 ]; then
	echo "$readme: $nblocks generated tables, $bad differ, $failed failed"
	[ $bad = 0 ] && [ $failed = 0 ]
	exit
fi
if [ $failed != 0 ]; then
	echo "$readme: $failed commands failed: nothing rewritten" >&2
	exit 1
fi
if [ $bad != 0 ]; then
	cp "$tmp/new" "$readme.tmp" && mv "$readme.tmp" "$readme" || exit 1
	echo "$readme: $nblocks tables, $bad rewritten"
else
	echo "$readme: $nblocks tables, all as generated"
fi
