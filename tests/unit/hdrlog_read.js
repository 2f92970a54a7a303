// SPDX-License-Identifier: GPL-2.0
/*
 * Read an HdrHistogram interval log with hdr-histogram-js (a third-party
 * reader) and check every interval against the raw samples it was made
 * from: tag, times, parameters, total count, min, max, p50/p90/p99/p99.9
 * (each within the value equivalence range of the nearest-rank sample),
 * the Interval_Max column, and every bucket's count against a histogram
 * that hdr-histogram-js itself records from the samples.
 *
 *   node hdrlog_read.js NODE_MODULES LOG SAMPLES
 *
 * SAMPLES: per interval a line "interval TAG START LENGTH LOWEST HIGHEST
 * SIGFIGS N", then N lines of one value each. Prints "ok - ..." and
 * "not ok - ..." lines (test_hdrlog turns them into TAP), and last
 * "end: N failed" (a reader that threw never gets there); exit 0 when
 * all passed, 1 otherwise.
 */
"use strict";
const fs = require("fs");
const path = require("path");

const [modules, logPath, samplesPath] = process.argv.slice(2);
const hdr = require(path.join(modules, "hdr-histogram-js"));
let failed = 0;

function check(ok, what, detail) {
	console.log(`${ok ? "ok" : "not ok"} - ${what}${detail ? ` (${detail})` : ""}`);
	if (!ok)
		failed++;
}

function readSamples(file) {
	const lines = fs.readFileSync(file, "utf8").split("\n");
	const out = [];

	for (let i = 0; i < lines.length; i++) {
		const f = lines[i].split(" ");

		if (f[0] !== "interval")
			continue;
		const n = Number(f[7]);
		const values = lines.slice(i + 1, i + 1 + n).map(BigInt);
		values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
		out.push({ tag: f[1], start: Number(f[2]), length: Number(f[3]),
			   lowest: Number(f[4]), highest: Number(f[5]),
			   sigfigs: Number(f[6]), values });
		i += n;
	}
	return out;
}

const text = fs.readFileSync(logPath, "utf8");
const lines = text.split("\n").filter((l) => l.startsWith("Tag="));
const baseSec = Number(/^#\[BaseTime: (\S+)/m.exec(text)?.[1]);
const want = readSamples(samplesPath);
const reader = new hdr.HistogramLogReader(text, 64);

check(lines.length === want.length, "one interval line per interval",
      `${lines.length} lines, ${want.length} intervals`);
check(Number.isFinite(baseSec) && baseSec > 0, "BaseTime header", `${baseSec}`);
// the header Java's HistogramLogWriter writes, and its line syntax
// (standard base64: Java's decoder takes no other alphabet)
const LEGEND = '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"';
const head = text.split("\n").filter((l) => !l.startsWith("Tag="));
check(head.includes("#[Histogram log format version 1.3]") && head.includes(LEGEND) &&
      head.some((l) => /^#\[StartTime: \d+\.\d{3} \(seconds since epoch\), \w{3} \w{3} \d\d [\d:]{8} UTC \d{4}\]$/.test(l)) &&
      head.some((l) => /^#\[BaseTime: \d+\.\d{3} \(seconds since epoch\)\]$/.test(l)),
      "header lines: format version, StartTime, BaseTime, legend");
const LINE = /^Tag=[^, \t]+,\d+\.\d{3},\d+\.\d{3},\d+\.\d{3},(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const badLine = lines.find((l) => !LINE.test(l));
check(!badLine, "interval lines: Tag=, 3 decimals, standard base64",
      badLine ? badLine.slice(0, 60) : `${lines.length} lines`);

// p as a fraction num/1000: the nearest rank ceil(n * p), at least 1
const PCTS = [[50, 500n], [90, 900n], [99, 990n], [99.9, 999n]];

for (const [i, w] of want.entries()) {
	const n = w.values.length;
	const tag = w.tag;
	let h;

	try {
		h = reader.nextIntervalHistogram();
	} catch (e) {
		// the reader's place in the log is lost: no use going on
		check(false, `${tag}: decoded`, `${e}`.split("\n")[0]);
		break;
	}
	if (!h) {
		check(false, `${tag}: decoded`, "the reader found no interval");
		continue;
	}
	check(h.tag === tag, `${tag}: tag`, `read ${h.tag}`);
	const startMs = (baseSec + w.start) * 1000;
	check(Math.abs(h.startTimeStampMsec - startMs) < 1 &&
	      Math.abs(h.endTimeStampMsec - h.startTimeStampMsec - w.length * 1000) < 1,
	      `${tag}: start and length`,
	      `${h.startTimeStampMsec} ms, ${h.endTimeStampMsec - h.startTimeStampMsec} ms`);
	check(h.lowestDiscernibleValue === w.lowest &&
	      h.highestTrackableValue === w.highest &&
	      h.numberOfSignificantValueDigits === w.sigfigs,
	      `${tag}: parameters`,
	      `${h.lowestDiscernibleValue}, ${h.highestTrackableValue}, ${h.numberOfSignificantValueDigits}`);
	check(h.totalCount === n, `${tag}: total count`, `${h.totalCount}, samples ${n}`);

	// the reference: hdr-histogram-js records the same samples itself
	const ref = hdr.build({ bitBucketSize: 64, autoResize: false,
				lowestDiscernibleValue: w.lowest,
				highestTrackableValue: w.highest,
				numberOfSignificantValueDigits: w.sigfigs });
	for (const v of w.values)
		ref.recordValue(Number(v));
	let bad = -1;
	for (let j = 0; j < ref.countsArrayLength && bad < 0; j++)
		if (h.getCountAtIndex(j) !== ref.getCountAtIndex(j))
			bad = j;
	check(h.countsArrayLength === ref.countsArrayLength && bad < 0,
	      `${tag}: every bucket's count`, bad < 0 ? `${ref.countsArrayLength} buckets` :
	      `bucket ${bad} (value ${ref.valueFromIndex(bad)}): ${h.getCountAtIndex(bad)}, want ${ref.getCountAtIndex(bad)}`);

	const lo = (v) => ref.lowestEquivalentValue(Number(v));
	const hi = (v) => ref.highestEquivalentValue(Number(v));
	const maxCol = Number(lines[i]?.split(",")[3]);
	if (!n) {
		check(h.maxValue === 0 && maxCol === 0, `${tag}: empty: max 0`, `${h.maxValue}, ${maxCol}`);
		continue;
	}
	const min = w.values[0], max = w.values[n - 1];
	check(h.minNonZeroValue === lo(min), `${tag}: min`,
	      `${h.minNonZeroValue}, sample ${min}, range [${lo(min)}, ${hi(min)}]`);
	// hdr-histogram-js 3.0.1 adds the unit mask (lowest rounded down to
	// a power of 2, minus 1) where Java ORs it in: 0 when lowest is 1
	const maxWant = hi(max) + ref.unitMagnitudeMask;
	check(h.maxValue === maxWant, `${tag}: max`,
	      `${h.maxValue}, sample ${max}, range [${lo(max)}, ${hi(max)}]` +
	      (ref.unitMagnitudeMask ? ` + unit mask ${ref.unitMagnitudeMask}` : ""));
	check(maxCol.toFixed(3) === (hi(max) / 1e6).toFixed(3), `${tag}: Interval_Max column`,
	      `${maxCol} ms`);
	for (const [p, per1000] of PCTS) {
		let k = (BigInt(n) * per1000 + 999n) / 1000n;
		if (k < 1n)
			k = 1n;
		const x = w.values[Number(k) - 1];
		const got = h.getValueAtPercentile(p);
		check(got >= lo(x) && got <= hi(x), `${tag}: p${p}`,
		      `${got}, sample ${x} (rank ${k} of ${n}), range [${lo(x)}, ${hi(x)}]`);
	}
}
if (!failed)
	check(reader.nextIntervalHistogram() === null, "no interval beyond the samples'");
console.log(`end: ${failed} failed`);
process.exit(failed ? 1 : 0);
