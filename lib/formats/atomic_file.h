/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Results files appear whole or not at all: write to a temp file in the
 * destination's directory, then commit = fflush + fsync + fclose +
 * rename (+ fsync of the directory). A crash or a failed run never
 * leaves a truncated results file behind.
 *
 *   struct atomic_file af;
 *   err = atomic_file_open("results/run.json", 0, &af);
 *   ... write to af.f ...
 *   if (!err)
 *	err = atomic_file_commit(&af);
 *   atomic_file_abort(&af);	// no-op after a successful commit
 *
 * Without ATOMIC_FILE_REPLACE an existing destination is never
 * overwritten: open fails early with -EEXIST, and commit fails with
 * -EEXIST if the name appeared meanwhile (RENAME_NOREPLACE, or link()
 * where the file system lacks it). A commit that fails to publish keeps
 * the temp file (af.tmp_path) so that the results are not lost;
 * atomic_file_abort() removes it.
 */
#ifndef CONVBENCH_ATOMIC_FILE_H
#define CONVBENCH_ATOMIC_FILE_H

#include <limits.h>
#include <stdio.h>

#define ATOMIC_FILE_REPLACE	0x1u	/* commit may replace the file */

struct atomic_file {
	FILE *f;			/* write here until commit */
	unsigned int flags;
	char path[PATH_MAX];		/* destination */
	char tmp_path[PATH_MAX];	/* "" once gone or published */
};

/* 0 or -errno; the temp file is created with mode 0644 */
int atomic_file_open(const char *path, unsigned int flags,
		     struct atomic_file *af);
/* 0 or -errno (see above for what is left behind) */
int atomic_file_commit(struct atomic_file *af);
/* close and remove the temp file, if any; safe to call more than once */
void atomic_file_abort(struct atomic_file *af);

#endif /* CONVBENCH_ATOMIC_FILE_H */
