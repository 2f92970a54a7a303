/* SPDX-License-Identifier: GPL-2.0 */
/* What design.c (the build) and design_check.c (the balance, the JSON) share */
#ifndef CONVBENCH_DESIGN_INT_H
#define CONVBENCH_DESIGN_INT_H

#include <stdbool.h>

#include "design.h"

static inline unsigned int nkernels(const struct design_params *p)
{
	return p->kernel[DESIGN_K_V5] + p->kernel[DESIGN_K_GMEM];
}

static inline unsigned int nphases(const struct design_params *p)
{
	return p->traced ? 2 : 1;
}

static inline unsigned int cells_of(const struct design_params *p,
				    enum design_kernel k)
{
	return nphases(p) * p->nsizes * p->blocks * (k == DESIGN_K_V5 ? 2 : 1);
}

/* boot i counts: no valid[] (NULL) counts every boot */
static inline bool in_use(const bool *valid, unsigned int i)
{
	return !valid || valid[i];
}

#endif /* CONVBENCH_DESIGN_INT_H */
