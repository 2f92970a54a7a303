/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vocabulary of convbench's results files, one spelling for the
 * tools that write them (bench/) and read them (analysis/): the modes
 * and the directions of a conversion. Sizes are spelled by units.h,
 * the trace histograms' buckets by hist_bucket.h (TRACE_HIST_SUB_BITS).
 */
#ifndef CONVBENCH_VOCAB_H
#define CONVBENCH_VOCAB_H

enum conv_mode {
	MODE_DESTRUCTIVE,	/* PUNCH_HOLE / fallocate, as v5 posted */
	MODE_INPLACE,		/* our in-place conversion request */
	MODE_GMEM,		/* guest_memfd as merged (6.12), QEMU's way */
	MODE_NR,
};

enum conv_dir {
	DIR_TO_SHARED,
	DIR_TO_PRIVATE,
	DIR_NR,
};

/* "destructive", "inplace", "gmem" */
extern const char *const conv_mode_names[MODE_NR];
/* "to-shared", "to-private" */
extern const char *const conv_dir_names[DIR_NR];

/* the name of m (out of range: the first mode's) */
const char *conv_mode_name(enum conv_mode m);
/* the name of d (anything but DIR_TO_PRIVATE: "to-shared") */
const char *conv_dir_name(enum conv_dir d);
/* the mode or direction a name spells, or -1 (also for NULL) */
int conv_mode_of(const char *s);
int conv_dir_of(const char *s);

#endif /* CONVBENCH_VOCAB_H */
