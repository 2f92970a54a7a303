#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make test's short storm: convstress (tests/stress/) for STRESS_S
# seconds (default 15) in the debug kernel's test boot, after the
# kernel's tests. make stress runs it for 10 minutes in a boot of its
# own. busybox sh; convstress prints the TAP line and the closing line.
cd "$(dirname "$0")" || exit 1
exec ./convstress --duration="${STRESS_S:-15}"
