// SPDX-License-Identifier: GPL-2.0
/*
 * lib/jsonr (the JSON reader analysis/ and convbench --merge read
 * summary.json with) and lib/csvr: what lib/jsonw writes reads back the
 * same (nesting, escapes, numbers, null, NaN as null), a reread copy
 * through jv_write is the same text, bad JSON is refused with where;
 * CSV fields split with quotes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csvr.h"
#include "jsonr.h"
#include "jsonw.h"
#include "tap.h"

static char *write_sample(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jsonw w;

	jsonw_init(&w, f);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "name", "a \"quoted\"\tline\n");
	jsonw_kv_u64(&w, "seed", 9007199254740991ULL);
	jsonw_kv_double(&w, "p50", 0.799);
	jsonw_kv_double(&w, "lo", NAN);
	jsonw_kv_bool(&w, "shown", false);
	jsonw_key(&w, "rounds");
	jsonw_arr_open(&w);
	jsonw_double(&w, 0.75);
	jsonw_i64(&w, -3);
	jsonw_obj_open(&w);
	jsonw_obj_close(&w);
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_finish(&w);
	fclose(f);
	return buf;
}

int main(void)
{
	char *text = write_sample(), *again = NULL, err[128];
	char line[] = "a,\"b,c\",\"d \"\"e\"\"\",,f\n", *fl[8];
	struct jv *v = jsonr_parse(text, err, sizeof(err)), *v2;
	const struct jv *r;
	size_t len = 0;
	struct jsonw w;
	double x;
	FILE *f;

	tap_result(v != NULL, "what jsonw writes parses (%s)", v ? "ok" : err);
	tap_result(!strcmp(jv_str(jv_get(v, "name"), ""), "a \"quoted\"\tline\n"),
		   "escapes decode");
	tap_result(jv_num(jv_get(v, "seed"), 0) == 9007199254740991.0 &&
		   jv_num(jv_get(v, "p50"), 0) == 0.799,
		   "numbers: 2^53 - 1 exact, 0.799");
	tap_result(jv_get(v, "lo")->type == JV_NULL &&
		   isnan(jv_num(jv_get(v, "lo"), NAN)) &&
		   !jv_bool(jv_get(v, "shown"), true),
		   "NaN was written as null; false reads false");
	r = jv_get(v, "rounds");
	tap_result(jv_len(r) == 3 && jv_num(jv_at(r, 1), 0) == -3 &&
		   jv_at(r, 2)->type == JV_OBJ && !jv_at(r, 3) &&
		   !jv_get(v, "missing") && !jv_get(r, "name"),
		   "arrays, empty objects, absent members and items");
	f = open_memstream(&again, &len);
	jsonw_init(&w, f);
	jv_write(&w, v);
	jsonw_finish(&w);
	fclose(f);
	v2 = jsonr_parse(again, err, sizeof(err));
	tap_result(v2 && !strcmp(jv_str(jv_get(v2, "name"), ""),
				 jv_str(jv_get(v, "name"), "")) &&
		   jv_num(jv_get(v2, "seed"), 0) == 9007199254740991.0 &&
		   jv_len(jv_get(v2, "rounds")) == 3,
		   "jv_write copies a value through jsonw");
	jsonr_free(v2);
	tap_result(!jsonr_parse("{\"a\": [1, 2,]}", err, sizeof(err)) &&
		   strstr(err, "offset") &&
		   !jsonr_parse("{\"a\": 1} x", err, sizeof(err)) &&
		   !jsonr_parse("[\"unterminated]", err, sizeof(err)),
		   "bad JSON is refused, saying where (%s)", err);
	tap_result(csvr_split(line, fl, 8) == 5 && !strcmp(fl[1], "b,c") &&
		   !strcmp(fl[2], "d \"e\"") && !*fl[3] && !strcmp(fl[4], "f") &&
		   csvr_col(fl, 5, "f") == 4 && !csvr_num("12.5", &x) &&
		   x == 12.5 && csvr_num("", &x) && csvr_num("1x", &x),
		   "CSV: quoted commas and quotes, empty fields, columns, numbers");
	jsonr_free(v);
	free(text);
	free(again);
	return tap_finish(false);
}
