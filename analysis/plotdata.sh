#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The tables analysis/*.gp read, in RUN/plots/data/: written by
# convreport --plot-data from the run's summary.json (statistics),
# hist.csv and samples.csv (shapes); see analysis/plotdata.c.
#
#   analysis/plotdata.sh RUN       (CONVREPORT=path to convreport)
#
# Exit: 0, 1 no summary.json or no cells, 2 bad usage.
[ $# -eq 1 ] && [ -d "$1" ] || {
	echo "usage: analysis/plotdata.sh RUN_FOLDER" >&2
	exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
cr=${CONVREPORT:-$here/../build/analysis/convreport}
[ -x "$cr" ] || { echo "plotdata: no convreport at $cr (make $cr)" >&2; exit 1; }
exec "$cr" --plot-data "$1"
