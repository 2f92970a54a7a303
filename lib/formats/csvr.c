// SPDX-License-Identifier: GPL-2.0
/* Reading convbench's CSV files: see csvr.h */
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
