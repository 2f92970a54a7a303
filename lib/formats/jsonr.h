/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader for the files convbench writes (summary.json):
 * the whole text into a tree of values. Numbers are doubles (convbench
 * keeps integers below 2^53), strings are UTF-8 with escapes decoded
 * (\uXXXX outside ASCII becomes '?'). Depth is bounded (JSONR_MAX_DEPTH).
 *
 *   struct jv *root = jsonr_parse(text, err, sizeof(err));
 *   double p50 = jv_num(jv_path(root, "cells"), NAN);
 *   jsonr_free(root);
 */
#ifndef CONVBENCH_JSONR_H
#define CONVBENCH_JSONR_H

#include <stdbool.h>
#include <stddef.h>

struct jsonw;

#define JSONR_MAX_DEPTH	64

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	bool b;
	double num;
	char *str;
	size_t n;		/* items of an array or object */
	struct jv *items;
	char **keys;		/* an object's, n of them */
};

/* NULL on error, with err[] saying where and what */
struct jv *jsonr_parse(const char *text, char *err, size_t errlen);
/* the file at path, parsed; NULL on error (err[] names the file) */
struct jv *jsonr_load(const char *path, char *err, size_t errlen);
void jsonr_free(struct jv *v);

/* member key of an object (NULL if v is not one or lacks it) */
const struct jv *jv_get(const struct jv *v, const char *key);
/* item i of an array, or NULL */
const struct jv *jv_at(const struct jv *v, size_t i);
/* number of items of an array or object, 0 otherwise */
size_t jv_len(const struct jv *v);
/* the value as a number / string / bool, or dflt when it is not one */
double jv_num(const struct jv *v, double dflt);
const char *jv_str(const struct jv *v, const char *dflt);
bool jv_bool(const struct jv *v, bool dflt);
/* write v through a jsonw (copying a member from one file to another) */
void jv_write(struct jsonw *w, const struct jv *v);

#endif /* CONVBENCH_JSONR_H */
