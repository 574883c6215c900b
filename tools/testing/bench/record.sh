#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# record.sh [RUN]: add one make bench run to the records. RUN is the
# run's directory, build/bench/runs/STAMP (default: the newest). Its
# data (bench.csv, churn.csv, churn-removals.csv, churn-attrib.csv,
# rsockets.csv, whichever it has) and its report go to
# tools/testing/bench/records/ as DAY-NAME (DAY-report.txt for the report), DAY the run's UTC day
# with b, c, ... after it for the day's second and later records, as
# the records before; then plot.py draws the newest records again into
# records/plots/, which Documentation/benchmarks.rst and the README
# show. Commit the new files with the run's commit in the message.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
rec=$here/records
run=${1:-}
if [ -z "$run" ]; then
	# The glob sorts: the last is the newest STAMP.
	for d in "$here/../../../build/bench/runs/"*/; do
		[ -d "$d" ] && run=$d
	done
fi
run=${run%/}
if [ -z "$run" ] || ! [ -f "$run/report.txt" ]; then
	echo "record.sh: no bench run (build/bench/runs/STAMP/report.txt)" >&2
	exit 1
fi
day=$(basename "$run" | cut -c1-10)
for s in '' b c d e f g h i j k; do
	ls "$rec/$day$s-"* >/dev/null 2>&1 || break
done
name=$day$s
for f in bench churn churn-removals churn-attrib rsockets; do
	if [ -f "$run/$f.csv" ]; then
		cp "$run/$f.csv" "$rec/$name-$f.csv"
	fi
done
cp "$run/report.txt" "$rec/$name-report.txt"
echo "record.sh: $run as $rec/$name-*"
"$here/plot.py" "$rec" "$rec/plots"
