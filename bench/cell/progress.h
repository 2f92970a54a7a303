/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progress of a run on stderr: cell k of N, conversions done, rate, time
 * left. Redrawn in place on a terminal, a line every few seconds
 * otherwise (make bench, a pipe); CONVBENCH_PROGRESS=tty|lines|off
 * overrides (the VM runner passes the host terminal's choice in).
 */
#ifndef CONVBENCH_PROGRESS_H
#define CONVBENCH_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "cell_types.h"

enum progress_how {
	PROGRESS_OFF,
	PROGRESS_TTY,
	PROGRESS_LINES,
};

#define PROGRESS_KEYS	64	/* (mode, size) pairs with a known rate */

struct progress {
	enum progress_how how;
	const struct plan_cell *plan;
	size_t ncells, cell;		/* the cell running, from 0 */
	uint64_t cell_total;		/* its conversions (0: --duration) */
	double duration_s;
	uint64_t per_cell;		/* conversions of a cell by count */
	uint64_t run_ms0, cell_ms0, last_ms;
	uint64_t done_convs;		/* in finished cells */
	uint64_t done_ms;		/* their wall time */
	bool drawn;			/* a tty line is on the screen */
	/* ms per conversion of each (mode, size) measured so far */
	struct { enum conv_mode mode; uint64_t size; double ms; } rate[PROGRESS_KEYS];
	unsigned int nrate;
};

/* how from CONVBENCH_PROGRESS, else a terminal on stderr or not */
void progress_init(struct progress *pg, const struct plan_cell *plan,
		   size_t ncells, const struct cell_params *proto);
/* before cell k: hooks the watchdog's tick into p */
void progress_cell_start(struct progress *pg, size_t k, struct cell_params *p);
/* after it: clears a tty line, so that what follows starts clean */
void progress_cell_end(struct progress *pg, uint64_t conversions);

#endif /* CONVBENCH_PROGRESS_H */
