// SPDX-License-Identifier: GPL-2.0
/* Sizes spelled one way: see units.h */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "units.h"

const char *size_str(uint64_t b, char *buf, size_t len)
{
	if (b && !(b % (1ULL << 30)))
		snprintf(buf, len, "%" PRIu64 "G", b >> 30);
	else if (b && !(b % (1ULL << 20)))
		snprintf(buf, len, "%" PRIu64 "M", b >> 20);
	else if (b && !(b % (1ULL << 10)))
		snprintf(buf, len, "%" PRIu64 "K", b >> 10);
	else
		snprintf(buf, len, "%" PRIu64, b);
	return buf;
}

uint64_t size_parse(const char *s)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	if (*end) {
		if (!strcasecmp(end, "K") || !strcasecmp(end, "KiB"))
			mult = 1ULL << 10;
		else if (!strcasecmp(end, "M") || !strcasecmp(end, "MiB"))
			mult = 1ULL << 20;
		else if (!strcasecmp(end, "G") || !strcasecmp(end, "GiB"))
			mult = 1ULL << 30;
		else
			return 0;
	}
	if (v > UINT64_MAX / mult)
		return 0;
	return v * mult;
}
