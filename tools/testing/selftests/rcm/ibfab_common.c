// SPDX-License-Identifier: GPL-2.0-only
/* The test fabric's helpers of ib, ibref and ipoib (ibfab_common.h). */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <rdma/rcm_user.h>

#include "ibfab_common.h"
#include "rcm_test.h"

int fabric_up(void)
{
	if (access(IB_SYS "ibfab0", F_OK) == 0)
		return 0;
	if (access(IBFAB_KO, F_OK))
		return 1;
	if (rcm_sh("insmod " IBFAB_KO))
		return 1;
	/* rcm's ib_client is called as the devices register: present. */
	return access(IB_SYS "ibfab0", F_OK) ? 1 : 0;
}

int fab(const char *cmd)
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

long fab_counter(const char *name)
{
	char key[64], v[64];

	snprintf(key, sizeof(key), "%s ", name);
	return ibfab_line(key, v, sizeof(v)) ? -1 : strtol(v, NULL, 0);
}

int dev_gid(const char *dev, struct in6_addr *gid)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), IB_SYS "%s/ports/1/gids/0", dev);
	if (ibfab_read_line(path, buf, sizeof(buf)))
		return -1;
	return inet_pton(AF_INET6, buf, gid) == 1 ? 0 : -1;
}

int ib_route_by_sa(int fd, unsigned int id, struct rcm_event *ev)
{
	long queries;

	if (fab("sa path sl 3 mtu 4 rate 7 life 16"))
		return -1;
	queries = fab_counter("sa_queries");
	if (rcm_route(fd, id, 5000) ||
	    rcm_expect_event(fd, RCM_EVENT_ROUTE_RESOLVED, ev))
		return -1;
	if (ev->status || fab_counter("sa_queries") != queries + 1) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

const char *ib_sa_path_differs(const struct rcm_path *p,
			       const struct in6_addr *sgid,
			       const struct in6_addr *dgid)
{
	if (memcmp(p->sgid, sgid, 16))
		return "sgid";
	if (memcmp(p->dgid, dgid, 16))
		return "dgid";
	if (p->pkey != 0xffff)
		return "pkey";
	/* The LIDs, as ucma reports them (ib_copy_path_rec_to_user()). */
	if (p->slid != 1 || p->dlid != 2)
		return "LIDs";
	if (p->sl != 3 || p->mtu != 4 || p->rate != 7 ||
	    p->packet_life_time != 16)
		return "SL, MTU, rate or packet life time";
	return p->rec_type ? "rec_type" : NULL;
}

int ib_addr(void *kss, const char *dev, uint64_t sid, uint64_t mask)
{
	struct ib_sockaddr *sib = kss;

	memset(kss, 0, sizeof(struct __kernel_sockaddr_storage));
	sib->sib_family = AF_IB;
	sib->sib_pkey = htons(0xffff);
	sib->sib_sid = htobe64(sid);
	sib->sib_sid_mask = htobe64(mask);
	return dev ? dev_gid(dev, &sib->sib_addr) : 0;
}

int ib_bind(int fd, unsigned int id, const char *dev, uint64_t sid,
	    uint64_t mask, struct rcm_bind_addr *b)
{
	memset(b, 0, sizeof(*b));
	b->size = sizeof(*b);
	b->id = id;
	if (ib_addr(&b->addr, dev, sid, mask))
		return -2;
	return ioctl(fd, RCM_IOCTL_BIND_ADDR, b);
}

int ib_resolve(int fd, unsigned int id, const char *src, const char *dst,
	       uint64_t sid)
{
	struct rcm_resolve_addr r = {
		.size = sizeof(r), .id = id, .timeout_ms = 2000,
	};

	if ((src && ib_addr(&r.src, src, 0, 0)) ||
	    ib_addr(&r.dst, dst, sid, ~0ULL))
		return -2;
	return ioctl(fd, RCM_IOCTL_RESOLVE_ADDR, &r);
}

unsigned int ib_listener(int fd, uint64_t *sid)
{
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 0x11);
	struct rcm_bind_addr b;
	struct rcm_query_id q;

	if (!id || ib_bind(fd, id, "ibfab1", 0, 0, &b) ||
	    rcm_listen(fd, id, 8) || rcm_query(fd, id, &q))
		return 0;
	*sid = be64toh(((struct ib_sockaddr *)&q.out_src)->sib_sid);
	return id;
}

unsigned int ib_routed_ps(int fd, unsigned short ps, uint64_t sid,
			  unsigned long long ctx)
{
	unsigned int id = rcm_create(fd, ps, RCM_QPT_RC, ctx);
	struct rcm_event ev;

	if (!id || ib_resolve(fd, id, "ibfab0", "ibfab1", sid) ||
	    rcm_expect_event(fd, RCM_EVENT_ADDR_RESOLVED, &ev) ||
	    rcm_route(fd, id, 5000) ||
	    rcm_expect_event(fd, RCM_EVENT_ROUTE_RESOLVED, &ev))
		return 0;
	return id;
}

unsigned int ib_ud_id(int fd, const char *dev, unsigned long long ctx)
{
	unsigned int id = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, ctx);
	struct rcm_bind_addr b;

	if (!id || ib_bind(fd, id, dev, 0, 0, &b))
		return 0;
	return id;
}

int ib_mcast(int fd, unsigned int id, const void *mgid, bool join,
	     unsigned int flags, unsigned long long ctx)
{
	struct rcm_join_mcast j = {
		.size = sizeof(j), .id = id, .join_flags = flags,
		.context = ctx,
	};
	struct rcm_leave_mcast l = { .size = sizeof(l), .id = id };
	struct ib_sockaddr *sib = join ? (void *)&j.addr : (void *)&l.addr;

	sib->sib_family = AF_IB;
	sib->sib_pkey = htons(0xffff);
	if (mgid)
		memcpy(&sib->sib_addr, mgid, 16);
	return ioctl(fd, join ? RCM_IOCTL_JOIN_MCAST : RCM_IOCTL_LEAVE_MCAST,
		     join ? (void *)&j : (void *)&l);
}

bool ibfab_sa_groups_gone(void)
{
	return RCM_WAIT_FOR(fab_counter("sa_groups") == 0, 30000);
}

int ib_set_path(int fd, unsigned int id, uint16_t slid, uint16_t dlid,
		uint8_t sl, uint8_t mtu, uint8_t rate, uint8_t life)
{
	/* struct ib_path_rec_data: flags, a PathRecord (IBA 15.2.5.16). */
	struct {
		uint32_t flags, reserved;
		uint8_t rec[64];
	} d = { .flags = 0x2b };	/* GMP | PRIMARY | BIDIRECTIONAL */
	struct rcm_set_option o = {
		.size = sizeof(o), .id = id, .level = RCM_OPTION_IB,
		.optname = RCM_OPTION_IB_PATH, .optlen = sizeof(d),
		.value = (uintptr_t)&d,
	};

	if (dev_gid("ibfab1", (struct in6_addr *)(d.rec + 8)) ||
	    dev_gid("ibfab0", (struct in6_addr *)(d.rec + 24)))
		return -1;
	d.rec[40] = dlid >> 8;
	d.rec[41] = dlid;
	d.rec[42] = slid >> 8;
	d.rec[43] = slid;
	d.rec[49] = 0x80 | 1;		/* reversible, one path */
	d.rec[50] = 0xff;
	d.rec[51] = 0xff;
	d.rec[53] = sl;
	/* Each with the selector "exactly" (2). */
	d.rec[54] = 2 << 6 | mtu;
	d.rec[55] = 2 << 6 | rate;
	d.rec[56] = 2 << 6 | life;
	return ioctl(fd, RCM_IOCTL_SET_OPTION, &o);
}
