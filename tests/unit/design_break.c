// SPDX-License-Identifier: GPL-2.0
/* Breaking a design on purpose: see design_break.h */
#include "design_break.h"

void design_break_abab(struct design *d)
{
	unsigned int i, c;

	for (i = 0; i < d->nboots; i++) {
		struct design_boot *b = &d->boot[i];

		for (c = 0; c + 1 < b->ncells; c++)
			if (b->cell[c].mode == DESIGN_INPLACE &&
			    b->cell[c + 1].mode == DESIGN_DESTRUCTIVE &&
			    b->cell[c].size == b->cell[c + 1].size &&
			    b->cell[c].block == b->cell[c + 1].block) {
				b->cell[c].mode = DESIGN_DESTRUCTIVE;
				b->cell[c + 1].mode = DESIGN_INPLACE;
			}
	}
}
