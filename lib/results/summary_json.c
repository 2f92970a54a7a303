// SPDX-License-Identifier: GPL-2.0
/* summary.json: see summary_json.h */
#include <string.h>

#include "summary_json.h"
#include "units.h"

static int differs(const struct jv *x, const char *key, const char *want)
{
	return want && strcmp(jv_str(jv_get(x, key), ""), want);
}

const struct jv *summary_find(const struct jv *list, const char *mode,
			      uint64_t size, const char *dir)
{
	char sz[32];
	size_t i;

	size_str(size, sz, sizeof(sz));
	for (i = 0; i < jv_len(list); i++) {
		const struct jv *x = jv_at(list, i);

		if (!differs(x, "mode", mode) && !differs(x, "size", sz) &&
		    !differs(x, "direction", dir))
			return x;
	}
	return NULL;
}
