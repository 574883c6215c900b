// SPDX-License-Identifier: GPL-2.0-only
/*
 * ioctl_errors: every malformed ioctl gets the errno the uapi header's
 * table documents, and nothing else (the guest harness separately fails
 * the run on any kernel splat these calls might cause): the header rules
 * on one command; then, for every command, a size below its first
 * release, above a page, a non-zero tail, an unknown flag, NULL and
 * kernel pointers (the documented errno each time), an unknown handle
 * (ENOENT, or EINVAL / EAFNOSUPPORT where the arguments are checked
 * first); and 40 rounds of random bytes behind a valid header on live RC
 * and UD ids, which must give 0 or a documented errno.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"

#define offsetofend(type, member)					\
	(offsetof(type, member) + sizeof(((type *)0)->member))

static int fd = -1;

static int dev(void)
{
	if (fd < 0)
		fd = rcm_open_dev();
	return fd;
}

#define NEED_DEV()							\
	do {								\
		if (dev() < 0) {					\
			rcm_fail(__FILE__, __LINE__, "open %s: %s",	\
				 RCM_DEV, strerror(errno));		\
			return;						\
		}							\
	} while (0)

RCM_TEST(unknown_command_is_enotty)
{
	struct rcm_query q = { .size = sizeof(q) };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, _IO(RCM_IOCTL_MAGIC, RCM_CMD_BASE + 0x7f), &q),
		    ENOTTY);
	CHECK_ERRNO(ioctl(fd, _IO(RCM_IOCTL_MAGIC, RCM_CMD_BASE - 1), &q),
		    ENOTTY);
	CHECK_ERRNO(ioctl(fd, _IO(RCM_IOCTL_MAGIC, 0), &q), ENOTTY);
}

RCM_TEST(foreign_magic_is_enotty)
{
	struct rcm_query q = { .size = sizeof(q) };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, _IO(0x1b, RCM_CMD_QUERY), &q), ENOTTY);
	/* The right number encoded with a direction and size is not ours. */
	CHECK_ERRNO(ioctl(fd, _IOWR(RCM_IOCTL_MAGIC, RCM_CMD_QUERY,
				    struct rcm_query), &q), ENOTTY);
}

RCM_TEST(size_below_minimum_is_einval)
{
	struct rcm_query q = { .size = 0 };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EINVAL);
	/* The first release of struct rcm_query ended at out_num_devices. */
	q.size = offsetofend(struct rcm_query, out_num_devices) - 1;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EINVAL);
	q.size = 8;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EINVAL);
}

RCM_TEST(size_above_page_is_e2big)
{
	struct rcm_query q = { .size = 4097 };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), E2BIG);
	q.size = UINT32_MAX;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), E2BIG);
}

RCM_TEST(larger_struct_with_zero_tail_is_accepted)
{
	struct {
		struct rcm_query q;
		uint64_t future[4];
	} big = { .q.size = sizeof(big) };

	NEED_DEV();
	CHECK(ioctl(fd, RCM_IOCTL_QUERY, &big) == 0, "query: %s",
	      strerror(errno));
	CHECK(big.q.out_abi_version == RCM_ABI_VERSION, "abi %u",
	      big.q.out_abi_version);
	CHECK(big.future[0] == 0 && big.future[3] == 0,
	      "kernel wrote past its struct");
}

RCM_TEST(larger_struct_with_nonzero_tail_is_e2big)
{
	struct {
		struct rcm_query q;
		uint64_t future[4];
	} big = { .q.size = sizeof(big), .future[3] = 1 };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &big), E2BIG);
}

RCM_TEST(unknown_flags_are_eopnotsupp)
{
	struct rcm_query q = { .size = sizeof(q), .flags = 1 };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EOPNOTSUPP);
	q.flags = 0x80000000u;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EOPNOTSUPP);
}

RCM_TEST(bad_pointers_are_efault)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rcm_query *q;
	char *map;

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, NULL), EFAULT);
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, (void *)8), EFAULT);
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, (void *)-4096L), EFAULT);

	/* Header readable, the rest of the struct on an unmapped page. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(munmap(map + page, page) == 0, "munmap");
	q = (struct rcm_query *)(map + page - 8);
	q->size = sizeof(*q);
	q->flags = 0;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, q), EFAULT);

	/* A read-only struct: the output cannot be written back. */
	q = (struct rcm_query *)map;
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	CHECK(mprotect(map, page, PROT_READ) == 0, "mprotect");
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, q), EFAULT);
	munmap(map, page);
}

/* A read-only page holding a copy of a command struct. */
static void *read_only_copy(const void *arg, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *map;

	map = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	memcpy(map, arg, len);
	if (mprotect(map, page, PROT_READ)) {
		munmap(map, page);
		return NULL;
	}
	return map;
}

/*
 * Commands without outputs never write to userspace: from a read-only
 * struct they do their work and succeed (the kernel once wrote the whole
 * struct back, so LISTEN listened and then failed with EFAULT). So does
 * a command with outputs whose size stops before them.
 */
RCM_TEST(input_only_commands_work_from_read_only_memory)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rcm_set_option opt = { .size = sizeof(opt) };
	struct rcm_listen lis = { .size = sizeof(lis) };
	struct rcm_bind_addr bind = {
		.size = offsetofend(struct rcm_bind_addr, addr),
	};
	unsigned int id, id2;
	uint8_t tos = 32;
	void *ro;

	NEED_DEV();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	CHECK(id, "create: %s", strerror(errno));

	opt.id = id;
	opt.level = RCM_OPTION_ID;
	opt.optname = RCM_OPTION_ID_TOS;
	opt.value = tos;
	ro = read_only_copy(&opt, sizeof(opt));
	CHECK(ro, "read-only copy: %s", strerror(errno));
	CHECK(ioctl(fd, RCM_IOCTL_SET_OPTION, ro) == 0,
	      "SET_OPTION from read-only memory: %s", strerror(errno));
	munmap(ro, page);

	lis.id = id;
	lis.backlog = 4;
	ro = read_only_copy(&lis, sizeof(lis));
	CHECK(ro, "read-only copy: %s", strerror(errno));
	CHECK(ioctl(fd, RCM_IOCTL_LISTEN, ro) == 0,
	      "LISTEN from read-only memory: %s", strerror(errno));
	/* It listens: a second listen is refused for the id's state. */
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_LISTEN, ro), EINVAL);
	munmap(ro, page);

	/* BIND_ADDR of its first release: out_info lies beyond the size. */
	id2 = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	CHECK(id2, "create: %s", strerror(errno));
	bind.id = id2;
	rcm_sockaddr(&bind.addr, "0.0.0.0", 0);
	ro = read_only_copy(&bind, sizeof(bind));
	CHECK(ro, "read-only copy: %s", strerror(errno));
	CHECK(ioctl(fd, RCM_IOCTL_BIND_ADDR, ro) == 0,
	      "BIND_ADDR (first size) from read-only memory: %s",
	      strerror(errno));
	munmap(ro, page);

	CHECK(rcm_destroy(fd, id) == 0, "destroy: %s", strerror(errno));
	CHECK(rcm_destroy(fd, id2) == 0, "destroy: %s", strerror(errno));
}

RCM_TEST(failed_calls_leave_the_file_usable)
{
	struct rcm_query q = { .size = sizeof(q) };

	NEED_DEV();
	CHECK(ioctl(fd, RCM_IOCTL_QUERY, &q) == 0, "query: %s",
	      strerror(errno));
	CHECK(q.out_abi_version == RCM_ABI_VERSION, "abi %u",
	      q.out_abi_version);
}

RCM_TEST(write_and_seek_are_refused)
{
	char buf[8];

	NEED_DEV();
	CHECK_ERRNO(write(fd, buf, sizeof(buf)), EINVAL);
	CHECK(lseek(fd, 0, SEEK_SET) == -1 && errno == ESPIPE,
	      "lseek did not fail with ESPIPE");
}

/* Every command, with where its id handle sits (-1: it takes none). */
#define CMD(_name, _struct, _id)					\
	{ #_name, RCM_IOCTL_##_name, sizeof(struct _struct), _id }
#define ID_AT(_struct) offsetof(struct _struct, id)

static const struct {
	const char *name;
	unsigned long nr;
	size_t size;
	long id_off;
} cmds[] = {
	CMD(QUERY, rcm_query, -1),
	CMD(CREATE_ID, rcm_create_id, -1),
	CMD(DESTROY_ID, rcm_destroy_id, ID_AT(rcm_destroy_id)),
	CMD(BIND_ADDR, rcm_bind_addr, ID_AT(rcm_bind_addr)),
	CMD(RESOLVE_ADDR, rcm_resolve_addr, ID_AT(rcm_resolve_addr)),
	CMD(QUERY_ID, rcm_query_id, ID_AT(rcm_query_id)),
	CMD(RESOLVE_ROUTE, rcm_resolve_route, ID_AT(rcm_resolve_route)),
	CMD(SET_OPTION, rcm_set_option, ID_AT(rcm_set_option)),
	CMD(LISTEN, rcm_listen, ID_AT(rcm_listen)),
	CMD(REJECT, rcm_reject, ID_AT(rcm_reject)),
	CMD(ACCEPT, rcm_accept, ID_AT(rcm_accept)),
	CMD(DISCONNECT, rcm_disconnect, ID_AT(rcm_disconnect)),
	CMD(CONNECT, rcm_connect, ID_AT(rcm_connect)),
	CMD(ESTABLISH, rcm_establish, ID_AT(rcm_establish)),
	CMD(INIT_QP_ATTR, rcm_init_qp_attr, ID_AT(rcm_init_qp_attr)),
	CMD(NOTIFY, rcm_notify, ID_AT(rcm_notify)),
	CMD(MIGRATE_ID, rcm_migrate_id, ID_AT(rcm_migrate_id)),
	CMD(JOIN_MCAST, rcm_join_mcast, ID_AT(rcm_join_mcast)),
	CMD(LEAVE_MCAST, rcm_leave_mcast, ID_AT(rcm_leave_mcast)),
};

/* A command struct with room for a tail: size, then flags. */
union arg {
	struct {
		uint32_t size;
		uint32_t flags;
	} hdr;
	unsigned char raw[512];
};

static int call(unsigned long nr, union arg *a)
{
	return ioctl(fd, nr, a);
}

RCM_TEST(every_command_checks_its_header)
{
	union arg a;
	size_t i;

	NEED_DEV();
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *n = cmds[i].name;

		memset(&a, 0, sizeof(a));
		a.hdr.size = 7;
		CHECK(call(cmds[i].nr, &a) == -1 && errno == EINVAL,
		      "%s size 7: errno %d", n, errno);
		a.hdr.size = 4097;
		CHECK(call(cmds[i].nr, &a) == -1 && errno == E2BIG,
		      "%s size 4097: errno %d", n, errno);
		/* A known size with a non-zero byte the kernel lacks. */
		a.hdr.size = cmds[i].size + 8;
		a.raw[cmds[i].size + 4] = 1;
		CHECK(call(cmds[i].nr, &a) == -1 && errno == E2BIG,
		      "%s non-zero tail: errno %d", n, errno);
		a.raw[cmds[i].size + 4] = 0;
		a.hdr.size = cmds[i].size;
		a.hdr.flags = 0x80000000u;
		CHECK(call(cmds[i].nr, &a) == -1 && errno == EOPNOTSUPP,
		      "%s unknown flag: errno %d", n, errno);
		CHECK(ioctl(fd, cmds[i].nr, NULL) == -1 && errno == EFAULT,
		      "%s NULL: errno %d", n, errno);
		CHECK(ioctl(fd, cmds[i].nr, (void *)-4096L) == -1 &&
		      errno == EFAULT, "%s kernel pointer: errno %d", n, errno);
	}
}

RCM_TEST(every_id_command_refuses_unknown_handles)
{
	union arg a;
	size_t i;

	NEED_DEV();
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		uint32_t bad = 0xdead0000u + i;

		if (cmds[i].id_off < 0)
			continue;
		/* Zero tail beyond the kernel's struct is accepted. */
		memset(&a, 0, sizeof(a));
		a.hdr.size = cmds[i].size + 8;
		memcpy(a.raw + cmds[i].id_off, &bad, sizeof(bad));
		errno = 0;
		/*
		 * Commands that check their arguments first may say so:
		 * EINVAL, or EAFNOSUPPORT for the empty address.
		 */
		CHECK(call(cmds[i].nr, &a) == -1 &&
		      (errno == ENOENT || errno == EINVAL ||
		       errno == EAFNOSUPPORT),
		      "%s handle %#x: errno %d", cmds[i].name, bad, errno);
	}
}

/*
 * Random bytes behind a valid header and a real id, for every command:
 * whatever the kernel makes of them, it answers 0 or an errno and stays
 * clean (the harness checks the log for splats; the file's close and
 * the module's unload check for leaks).
 */
RCM_TEST(random_arguments_on_live_ids)
{
	static const int known[] = {
		EINVAL, EFAULT, ENOENT, EOPNOTSUPP, ENOPROTOOPT, EADDRINUSE,
		EADDRNOTAVAIL, EAFNOSUPPORT, ENODEV, ENETUNREACH, EHOSTUNREACH,
		EACCES, EBUSY, EBADF, EMFILE, ENOMEM, E2BIG, ETIMEDOUT,
		ENOTCONN, EISCONN, EALREADY, EPERM, ESRCH, ENXIO, ECONNREFUSED,
	};
	unsigned int seed = 20261130;
	int f = rcm_open_dev();
	union arg a;
	size_t i, j;
	int round;

	CHECK(f >= 0, "open");
	for (round = 0; round < 40; round++) {
		for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			unsigned int id = rcm_create(f, round & 1 ? RCM_PS_UDP :
						     RCM_PS_TCP, round & 1 ?
						     RCM_QPT_UD : RCM_QPT_RC,
						     round);
			bool ok = true;
			int ret;

			CHECK(id, "create: %s", strerror(errno));
			for (j = 0; j < cmds[i].size; j++)
				a.raw[j] = rand_r(&seed);
			a.hdr.size = cmds[i].size;
			a.hdr.flags = 0;
			if (cmds[i].id_off >= 0)
				memcpy(a.raw + cmds[i].id_off, &id, sizeof(id));
			/* Short timeouts: nothing may stay in flight long. */
			if (cmds[i].nr == RCM_IOCTL_RESOLVE_ADDR ||
			    cmds[i].nr == RCM_IOCTL_RESOLVE_ROUTE)
				memset(a.raw + cmds[i].id_off + 4, 0, 4);
			ret = ioctl(f, cmds[i].nr, &a);
			if (ret) {
				ok = false;
				for (j = 0; j < sizeof(known) / sizeof(known[0]); j++)
					ok |= errno == known[j];
			} else {
				ok = ret == 0;
			}
			CHECK(ok, "%s round %d: ret %d errno %d", cmds[i].name,
			      round, ret, errno);
			rcm_destroy(f, id);
		}
	}
	close(f);
}

int main(void)
{
	int ret = rcm_test_run();

	if (fd >= 0)
		close(fd);
	return ret;
}
