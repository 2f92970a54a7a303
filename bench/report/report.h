/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convbench's output: per cell and round, the funclatency-style
 * histogram and a summary as soon as the cell ends; at the end, the
 * statistics over rounds (bench/report/cellstats.h) on stdout and the files of
 * --out (summary.json with provenance, samples.csv, hist.csv,
 * histograms.txt), each written atomically, summary.json last.
 */
#ifndef CONVBENCH_REPORT_H
#define CONVBENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "cellstats.h"
#include "jsonr.h"
#include "jsonw.h"
#include "run_env.h"
#include "cell_types.h"

#define REPORT_MAX_NOTES	4
#define REPORT_MAX_EXTRA	6

/* a round as summary.json describes it */
struct report_round {
	uint32_t round;
	char order[512];	/* "2M destructive, 2M inplace, 4K inplace, ..." */
	bool invalid;		/* left out of every statistic */
	bool clock_unchecked;	/* make bench could not check its clock */
	char why[256];		/* why invalid, or unchecked */
	/* make bench's clock check of the boot (0 / "" when none) */
	double tsc_khz, tsc_khz_measured, clock_dev_pct;
	char clocksource[32];
	char tsc_messages[256];	/* "TSC unstable" lines of dmesg, if any */
};

struct report_extra {
	const char *key;	/* a top-level member of summary.json */
	void (*json)(struct jsonw *w, void *arg);
	/* a member "key" of every cell, or NULL */
	void (*cell_json)(struct jsonw *w, const struct cell_stats *c,
			  void *arg);
	/* text after the ratios (stdout and histograms.txt), or NULL */
	void (*text)(FILE *f, void *arg);
	void *arg;
};

struct report {
	const struct env *env;
	FILE *out;		/* stdout */
	char *dir;		/* --out, created by report_open */
	unsigned int nnotes;
	struct {
		const char *what;
		char why[256];
	} notes[REPORT_MAX_NOTES];
	/* set by the caller before report_finish() */
	const struct jv *provenance;	/* --merge: a boot's, else our own */
	const struct report_round *rounds;
	size_t nrounds;
	uint64_t order_seed;
	const struct history *history;	/* --history: earlier runs, or NULL */
	unsigned int family;	/* ratios whose CIs hold jointly (0: ours) */
	struct report_extra extra[REPORT_MAX_EXTRA];
	unsigned int nextra;
};

/* 0, or 2 when --out cannot be used (exists and not empty, ...) */
int report_open(struct report *r, const struct env *env);
/* --out: create DIR or take it empty; else say why and return 2 */
int report_claim_dir(const char *dir);
void report_note(struct report *r, const char *what, const char *why);
void report_add(struct report *r, const struct report_extra *e);
void report_cell(struct report *r, const struct cell_result *res);
/* 0, or -errno when a file could not be written */
int report_finish(struct report *r, const struct cell_result *res,
		  size_t n);
void report_close(struct report *r);
/* one more file in --out, written atomically by fn (0 or -errno) */
int report_write_file(struct report *r, const char *name,
		      int (*fn)(FILE *f, void *arg), void *arg);

/* summary.json (bench/report/summary.c) */
int summary_write(FILE *f, const struct report *r,
		  const struct run_stats *rs);
/* the ratio table with per-round ratios (stdout, histograms.txt) */
void report_print_ratios(FILE *f, const struct run_stats *rs);
/* the same for n ratios of one pair of modes (num over den) */
void report_print_ratio_list(FILE *f, const struct ratio_stats *q, size_t n);
/* one ratio as summary.json has it (bench/report/summary.c) */
void summary_json_ratio(struct jsonw *w, const struct ratio_stats *q);

#endif /* CONVBENCH_REPORT_H */
