/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the bench programs share (bench_ids.c, bench_accept.c).
 */
#ifndef RCM_BENCH_H
#define RCM_BENCH_H

#include <stdio.h>

/* The kernel's slab memory, /proc/meminfo "Slab", in kB; -1 on error. */
static inline long slab_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

#endif /* RCM_BENCH_H */
