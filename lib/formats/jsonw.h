/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny streaming JSON writer (fio style) for results files: 2-space
 * pretty printing, commas placed from the nesting it tracks. Misuse
 * (a value in an object without a key, a key in an array, unbalanced
 * close, nesting past JSONW_MAX_DEPTH, a second top-level value) sets
 * a sticky error flag and stops output instead of asserting; check
 * jsonw_finish().
 *
 * Strings are UTF-8 and passed through byte for byte except '"', '\\'
 * and control characters, which are escaped. Doubles are written in the
 * shortest "%.*g" form that reads back exactly; NaN and infinities
 * become null (JSON has no such numbers).
 */
#ifndef CONVBENCH_JSONW_H
#define CONVBENCH_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH	32

struct jsonw {
	FILE *f;
	unsigned int depth;
	bool error;
	bool have_key;		/* a key waits for its value */
	bool done;		/* the top-level value is complete */
	bool is_obj[JSONW_MAX_DEPTH];
	bool non_empty[JSONW_MAX_DEPTH];
};

void jsonw_init(struct jsonw *w, FILE *f);

void jsonw_obj_open(struct jsonw *w);
void jsonw_obj_close(struct jsonw *w);
void jsonw_arr_open(struct jsonw *w);
void jsonw_arr_close(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);

void jsonw_str(struct jsonw *w, const char *s);	/* NULL writes null */
void jsonw_u64(struct jsonw *w, uint64_t v);
void jsonw_i64(struct jsonw *w, int64_t v);
void jsonw_double(struct jsonw *w, double v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);

/* key and value in one call */
void jsonw_kv_str(struct jsonw *w, const char *key, const char *s);
void jsonw_kv_u64(struct jsonw *w, const char *key, uint64_t v);
void jsonw_kv_i64(struct jsonw *w, const char *key, int64_t v);
void jsonw_kv_double(struct jsonw *w, const char *key, double v);
void jsonw_kv_bool(struct jsonw *w, const char *key, bool v);

bool jsonw_error(const struct jsonw *w);
/*
 * End of document: a newline after the top-level value. 0 if it is
 * complete and nothing failed (including stdio errors), -1 otherwise.
 */
int jsonw_finish(struct jsonw *w);

/* the string escaping on its own, quotes included */
void jsonw_write_escaped(FILE *f, const char *s);

/*
 * A finite double in the shortest "%.Ng" (N = 15..17) that reads back
 * exactly, with '.' whatever the locale (csvw uses it too); returns the
 * length. JSONW_DOUBLE_LEN is enough for any double.
 */
#define JSONW_DOUBLE_LEN	32
int jsonw_fmt_double(char *buf, size_t size, double v);

#endif /* CONVBENCH_JSONW_H */
