// SPDX-License-Identifier: GPL-2.0
/* A small JSON reader: see jsonr.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonr.h"
#include "jsonw.h"

struct parser {
	const char *s, *start;
	char *err;
	size_t errlen;
	bool failed;
};

static void fail(struct parser *p, const char *what)
{
	if (!p->failed)
		snprintf(p->err, p->errlen, "offset %zu: %s",
			 (size_t)(p->s - p->start), what);
	p->failed = true;
}

static void skip_ws(struct parser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* a string at p->s (the opening quote), malloc'd */
static char *parse_string(struct parser *p)
{
	const char *s = p->s + 1;
	char *out = malloc(strlen(s) + 1), *w = out;

	if (!out) {
		fail(p, "out of memory");
		return NULL;
	}
	while (*s && *s != '"') {
		char c = *s++;

		if ((unsigned char)c < 0x20)
			break;
		if (c != '\\') {
			*w++ = c;
			continue;
		}
		c = *s++;
		switch (c) {
		case 'n': *w++ = '\n'; break;
		case 't': *w++ = '\t'; break;
		case 'r': *w++ = '\r'; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case '"': case '\\': case '/': *w++ = c; break;
		case 'u': {
			int i, v = 0;

			for (i = 0; i < 4; i++) {
				int h = hexval(s[i]);

				if (h < 0)
					break;
				v = v * 16 + h;
			}
			if (i < 4) {
				s = "";
				break;
			}
			s += 4;
			*w++ = v < 0x80 ? (char)v : '?';
			break;
		}
		default:
			s = "";
		}
	}
	if (*s != '"') {
		free(out);
		fail(p, "bad string");
		return NULL;
	}
	*w = 0;
	p->s = s + 1;
	return out;
}

static bool parse_value(struct parser *p, struct jv *v, int depth);

static bool grow(struct parser *p, struct jv *v, size_t *cap, bool keys)
{
	struct jv *items;
	char **k;
	size_t c;

	if (v->n < *cap)
		return true;
	c = *cap ? 2 * *cap : 8;
	items = realloc(v->items, c * sizeof(*items));
	if (items)
		v->items = items;
	if (!items) {
		fail(p, "out of memory");
		return false;
	}
	if (keys) {
		k = realloc(v->keys, c * sizeof(*k));
		if (!k) {
			fail(p, "out of memory");
			return false;
		}
		v->keys = k;
	}
	*cap = c;
	return true;
}

static bool parse_container(struct parser *p, struct jv *v, int depth,
			    bool obj)
{
	char close = obj ? '}' : ']';
	size_t cap = 0;

	v->type = obj ? JV_OBJ : JV_ARR;
	p->s++;
	skip_ws(p);
	if (*p->s == close) {
		p->s++;
		return true;
	}
	for (;;) {
		char *key = NULL;

		skip_ws(p);
		if (obj) {
			if (*p->s != '"') {
				fail(p, "expected a key");
				return false;
			}
			key = parse_string(p);
			if (!key)
				return false;
			skip_ws(p);
			if (*p->s != ':') {
				free(key);
				fail(p, "expected ':'");
				return false;
			}
			p->s++;
		}
		if (!grow(p, v, &cap, obj)) {
			free(key);
			return false;
		}
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		if (obj)
			v->keys[v->n] = key;
		v->n++;
		if (!parse_value(p, &v->items[v->n - 1], depth + 1))
			return false;
		skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == close) {
			p->s++;
			return true;
		}
		fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		return false;
	}
}

static bool parse_value(struct parser *p, struct jv *v, int depth)
{
	char *end;

	if (depth > JSONR_MAX_DEPTH) {
		fail(p, "nested too deeply");
		return false;
	}
	skip_ws(p);
	switch (*p->s) {
	case '{':
		return parse_container(p, v, depth, true);
	case '[':
		return parse_container(p, v, depth, false);
	case '"':
		v->type = JV_STR;
		v->str = parse_string(p);
		return v->str != NULL;
	case 't':
	case 'f':
	case 'n':
		if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "null", 4)) {
			v->type = *p->s == 't' ? JV_BOOL : JV_NULL;
			v->b = *p->s == 't';
			p->s += 4;
			return true;
		}
		if (!strncmp(p->s, "false", 5)) {
			v->type = JV_BOOL;
			p->s += 5;
			return true;
		}
		break;
	default:
		if ((*p->s >= '0' && *p->s <= '9') || *p->s == '-') {
			errno = 0;
			v->num = strtod(p->s, &end);
			if (end != p->s && !errno) {
				v->type = JV_NUM;
				p->s = end;
				return true;
			}
		}
	}
	fail(p, "expected a value");
	return false;
}

static void free_value(struct jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		free_value(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

void jsonr_free(struct jv *v)
{
	if (!v)
		return;
	free_value(v);
	free(v);
}

struct jv *jsonr_parse(const char *text, char *err, size_t errlen)
{
	struct parser p = { .s = text, .start = text, .err = err,
			    .errlen = errlen };
	struct jv *v = calloc(1, sizeof(*v));

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_value(&p, v, 0)) {
		skip_ws(&p);
		if (*p.s)
			fail(&p, "text after the value");
	}
	if (p.failed) {
		jsonr_free(v);
		return NULL;
	}
	return v;
}

struct jv *jsonr_load(const char *path, char *err, size_t errlen)
{
	char *text = NULL, e[200];
	size_t len = 0;
	struct jv *v;
	FILE *in, *mem;
	int c;

	in = fopen(path, "r");
	if (!in) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	mem = open_memstream(&text, &len);
	if (!mem) {
		fclose(in);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	while ((c = getc(in)) != EOF)
		putc(c, mem);
	fclose(in);
	if (fclose(mem)) {
		free(text);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	v = jsonr_parse(text, e, sizeof(e));
	if (!v)
		snprintf(err, errlen, "%s: %s", path, e);
	free(text);
	return v;
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
	size_t i;

	if (!v || v->type != JV_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const struct jv *jv_at(const struct jv *v, size_t i)
{
	if (!v || v->type != JV_ARR || i >= v->n)
		return NULL;
	return &v->items[i];
}

size_t jv_len(const struct jv *v)
{
	return v && (v->type == JV_ARR || v->type == JV_OBJ) ? v->n : 0;
}

double jv_num(const struct jv *v, double dflt)
{
	return v && v->type == JV_NUM ? v->num : dflt;
}

const char *jv_str(const struct jv *v, const char *dflt)
{
	return v && v->type == JV_STR ? v->str : dflt;
}

bool jv_bool(const struct jv *v, bool dflt)
{
	return v && v->type == JV_BOOL ? v->b : dflt;
}

void jv_write(struct jsonw *w, const struct jv *v)
{
	size_t i;

	switch (v ? v->type : JV_NULL) {
	case JV_NULL:
		jsonw_null(w);
		break;
	case JV_BOOL:
		jsonw_bool(w, v->b);
		break;
	case JV_NUM:
		if (v->num == floor(v->num) && fabs(v->num) < 9007199254740992.0)
			jsonw_i64(w, (int64_t)v->num);
		else
			jsonw_double(w, v->num);
		break;
	case JV_STR:
		jsonw_str(w, v->str);
		break;
	case JV_ARR:
		jsonw_arr_open(w);
		for (i = 0; i < v->n; i++)
			jv_write(w, &v->items[i]);
		jsonw_arr_close(w);
		break;
	case JV_OBJ:
		jsonw_obj_open(w);
		for (i = 0; i < v->n; i++) {
			jsonw_key(w, v->keys[i]);
			jv_write(w, &v->items[i]);
		}
		jsonw_obj_close(w);
		break;
	}
}
