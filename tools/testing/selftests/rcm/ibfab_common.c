// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test fabric as guest programs see it; see ibfab_common.h.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibfab_common.h"

int ibfab_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int ibfab_cmd(const char *cmd)
{
	FILE *f = fopen(IBFAB_CTL, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(cmd, f) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

int ibfab_line(const char *prefix, char *out, size_t len)
{
	char line[512];
	size_t n = strlen(prefix);
	FILE *f = fopen(IBFAB_CTL, "r");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, n)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, len, "%s", line + n);
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

long ibfab_counter(const char *name)
{
	char key[64], v[64];

	snprintf(key, sizeof(key), "%s ", name);
	return ibfab_line(key, v, sizeof(v)) ? -1 : strtol(v, NULL, 0);
}

int ibfab_dev_gid(const char *dev, struct in6_addr *gid)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), IB_SYS "%s/ports/1/gids/0", dev);
	if (ibfab_read_line(path, buf, sizeof(buf)))
		return -1;
	return inet_pton(AF_INET6, buf, gid) == 1 ? 0 : -1;
}
