// SPDX-License-Identifier: GPL-2.0
/* The names of the results files' modes and directions: see vocab.h */
#include <string.h>

#include "vocab.h"

const char *const conv_mode_names[MODE_NR] = {
	[MODE_DESTRUCTIVE] = "destructive",
	[MODE_INPLACE] = "inplace",
	[MODE_GMEM] = "gmem",
};

const char *const conv_dir_names[DIR_NR] = {
	[DIR_TO_SHARED] = "to-shared",
	[DIR_TO_PRIVATE] = "to-private",
};

const char *conv_mode_name(enum conv_mode m)
{
	return (unsigned int)m < MODE_NR ? conv_mode_names[m] :
	       conv_mode_names[0];
}

const char *conv_dir_name(enum conv_dir d)
{
	return conv_dir_names[d == DIR_TO_PRIVATE];
}

static int name_of(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

int conv_mode_of(const char *s)
{
	return name_of(conv_mode_names, MODE_NR, s);
}

int conv_dir_of(const char *s)
{
	return name_of(conv_dir_names, DIR_NR, s);
}
