/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a convbench run folder for convreport: samples.csv into cells
 * of total_ns, provenance strings of summary.json, convtrace's trace.csv
 * into histograms, hyperfine.json's means. The formats are the ones
 * bench/report.c, bench/jsonw.c, bpf/trace_out.c and hyperfine write;
 * nothing here is a general CSV or JSON parser.
 */
#ifndef CONVBENCH_RUNFILES_H
#define CONVBENCH_RUNFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

/* gmem: guest_memfd on the 6.12 kernel, a run's gmem/ subfolder */
enum run_mode { RUN_DESTRUCTIVE, RUN_INPLACE, RUN_GMEM, RUN_NR_MODES };
/* trace rows whose context names no mode (convtrace -- convbench) */
#define RUN_MODE_UNNAMED	RUN_NR_MODES
enum run_dir { RUN_TO_SHARED, RUN_TO_PRIVATE, RUN_NR_DIRS };

extern const char *const run_mode_name[RUN_NR_MODES];
extern const char *const run_dir_name[RUN_NR_DIRS];

/* one (mode, size, direction): total_ns of every recorded conversion */
struct run_cell {
	enum run_mode mode;
	uint64_t size;
	enum run_dir dir;
	double *total_ns;
	size_t n, cap;
};

struct run_samples {
	struct run_cell *cells;
	size_t ncells, cap;
	size_t rows;		/* data rows read */
	size_t bad_rows;	/* rows that did not parse (skipped) */
	char trigger[16];	/* first row's, or "mixed" */
	char preserve[8];	/* "1", "0" or "mixed" */
	unsigned int vcpus;	/* highest vcpu + 1 */
	/*
	 * Rows where the host handler (host clock) took longer than the
	 * guest's whole exit round trip (guest clock) that contains it: the
	 * two clocks disagree. Out of clock_rows with both columns.
	 */
	size_t clock_skew, clock_rows;
};

/* 0; -ENOENT if there is no such file; other -errno, err[] says why */
int run_read_samples(const char *path, struct run_samples *s,
		     char *err, size_t errlen);
/* the same, adding to what s holds (another boot's samples.csv) */
int run_add_samples(const char *path, struct run_samples *s,
		    char *err, size_t errlen);
/* the cell or NULL */
struct run_cell *run_find_cell(struct run_samples *s, enum run_mode m,
			       uint64_t size, enum run_dir d);
/* distinct sizes, ascending, at most max; returns how many */
size_t run_sizes(const struct run_samples *s, uint64_t *sizes, size_t max);
void run_free_samples(struct run_samples *s);

/*
 * The first string value of "key" in a JSON file's text (bench/jsonw.c
 * writes provenance first, so the first is provenance's), unescaped into
 * buf; false if absent, null or not a string.
 */
bool run_json_str(const char *text, const char *key, char *buf, size_t len);
/* the whole file, NUL-terminated, or NULL (errno set) */
char *run_slurp(const char *path);

/* a probe's calls in one (mode, size) of trace.csv, summed over contexts */
struct run_trace_hist {
	char probe[64];
	unsigned int mode;	/* enum run_mode or RUN_MODE_UNNAMED */
	uint64_t size;		/* 0: the contexts did not name a size */
	uint64_t count;
	double sum_ns;
	struct hist h;		/* bpf/convtrace.h's CT_HIST_SUB_BITS */
};

struct run_trace {
	struct run_trace_hist *rows;
	size_t nrows, cap;
	char (*missing)[2][96];	/* "# missing,NAME,REASON" lines */
	size_t nmissing;
};

/* 0, -ENOENT, or -errno; only the probes in names[] (NULL-terminated) */
int run_read_trace(const char *path, const char *const *names,
		   struct run_trace *t, char *err, size_t errlen);
struct run_trace_hist *run_trace_find(struct run_trace *t, const char *probe,
				      unsigned int mode, uint64_t size);
/* why probe was not traced, or NULL */
const char *run_trace_missing(const struct run_trace *t, const char *probe);
void run_free_trace(struct run_trace *t);

/* hyperfine --export-json: one whole-run result per command */
struct run_hyperfine {
	char command[160];
	double mean_s, stddev_s;
	unsigned int runs;
};

/* how many results were read into r[0..max) (0 when absent or bad) */
size_t run_read_hyperfine(const char *path, struct run_hyperfine *r,
			  size_t max);

#endif /* CONVBENCH_RUNFILES_H */
