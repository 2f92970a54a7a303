// SPDX-License-Identifier: GPL-2.0
/* Reading convbench's CSV files: see csvr.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csvr.h"

int csvr_split(char *line, char **f, int max)
{
	char *r = line, *w;
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		f[n++] = w = r;
		if (*r == '"') {
			r++;
			while (*r) {
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
			while (*r && *r != ',')
				r++;
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		if (*r != ',') {
			*w = '\0';
			break;
		}
		r++;
		*w = '\0';
	}
	return n;
}

int csvr_col(char *const *f, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i], name))
			return i;
	return -1;
}

int csvr_num(const char *s, double *v)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return errno || *end ? -1 : 0;
}

int csvr_open(struct csvr_file *c, const char *path, const char *const *names,
	      int n)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->in = fopen(path, "r");
	if (!c->in)
		return -errno;
	if (n > CSVR_MAX_COLS || getline(&c->line, &c->cap, c->in) < 0)
		return -ENODATA;
	c->lineno = 1;
	c->nf = c->n = csvr_split(c->line, c->f, CSVR_MAX_FIELDS);
	c->ncols = n;
	for (i = 0; i < n; i++)
		c->col[i] = csvr_col(c->f, c->nf, names[i]);
	return 0;
}

int csvr_missing(const struct csvr_file *c, uint64_t need)
{
	int i;

	for (i = 0; i < c->ncols; i++)
		if ((need & (1ull << i)) && c->col[i] < 0)
			return i;
	return -1;
}

int csvr_next(struct csvr_file *c)
{
	if (getline(&c->line, &c->cap, c->in) < 0)
		return 0;
	c->lineno++;
	c->blank = !c->line[strspn(c->line, " \r\n")];
	c->n = csvr_split(c->line, c->f, CSVR_MAX_FIELDS);
	return c->n < c->nf ? -EINVAL : 1;
}

const char *csvr_get(const struct csvr_file *c, int i)
{
	return c->col[i] >= 0 && c->col[i] < c->n ? c->f[c->col[i]] : "";
}

void csvr_close(struct csvr_file *c)
{
	if (c->in)
		fclose(c->in);
	free(c->line);
	memset(c, 0, sizeof(*c));
}
