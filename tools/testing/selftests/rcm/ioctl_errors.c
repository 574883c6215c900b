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

#include "rcm_harness.h"

#define offsetofend(type, member)					\
	(offsetof(type, member) + sizeof(((type *)0)->member))

/* The case's own file: each case runs in a child that opens it anew. */
static int fd = -1;

static int dev(void)
{
	if (fd < 0)
		fd = rcm_open_dev();
	return fd;
}

#define NEED_DEV()							\
	do {								\
		ASSERT_LE(0, dev())					\
			TH_LOG("open %s: %s", RCM_DEV, strerror(errno));\
	} while (0)

TEST(unknown_command_is_enotty)
{
	struct rcm_query q = { .size = sizeof(q) };

	NEED_DEV();
	ASSERT_ERRNO(ioctl(fd, _IO(RCM_IOCTL_MAGIC, RCM_CMD_BASE + 0x7f), &q),
		     ENOTTY);
	ASSERT_ERRNO(ioctl(fd, _IO(RCM_IOCTL_MAGIC, RCM_CMD_BASE - 1), &q),
		     ENOTTY);
	ASSERT_ERRNO(ioctl(fd, _IO(RCM_IOCTL_MAGIC, 0), &q), ENOTTY);
}

TEST(foreign_magic_is_enotty)
{
	struct rcm_query q = { .size = sizeof(q) };

	NEED_DEV();
	ASSERT_ERRNO(ioctl(fd, _IO(0x1b, RCM_CMD_QUERY), &q), ENOTTY);
	/* The right number encoded with a direction and size is not ours. */
	ASSERT_ERRNO(ioctl(fd, _IOWR(RCM_IOCTL_MAGIC, RCM_CMD_QUERY,
		     struct rcm_query), &q), ENOTTY);
}

TEST(size_below_minimum_is_einval)
{
	struct rcm_query q = { .size = 0 };

	NEED_DEV();
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EINVAL);
	/* Every byte of the struct of ABI version 2 is needed. */
	q.size = sizeof(q) - 4;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EINVAL);
	q.size = 8;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EINVAL);
}

TEST(size_above_page_is_e2big)
{
	struct rcm_query q = { .size = 4097 };

	NEED_DEV();
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), E2BIG);
	q.size = UINT32_MAX;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), E2BIG);
}

TEST(larger_struct_with_zero_tail_is_accepted)
{
	struct {
		struct rcm_query q;
		uint64_t future[4];
	} big = { .q.size = sizeof(big) };

	NEED_DEV();
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_QUERY, &big))
		TH_LOG("query: %s", strerror(errno));
	ASSERT_EQ(RCM_ABI_VERSION, big.q.out_abi_version)
		TH_LOG("abi %u", big.q.out_abi_version);
	ASSERT_TRUE(big.future[0] == 0 && big.future[3] == 0)
		TH_LOG("kernel wrote past its struct");
}

TEST(larger_struct_with_nonzero_tail_is_e2big)
{
	struct {
		struct rcm_query q;
		uint64_t future[4];
	} big = { .q.size = sizeof(big), .future[3] = 1 };

	NEED_DEV();
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &big), E2BIG);
}

TEST(unknown_flags_are_eopnotsupp)
{
	struct rcm_query q = { .size = sizeof(q), .flags = 1 };

	NEED_DEV();
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EOPNOTSUPP);
	q.flags = 0x80000000u;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EOPNOTSUPP);
}

TEST(bad_pointers_are_efault)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rcm_query *q;
	char *map;

	NEED_DEV();
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, NULL), EFAULT);
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, (void *)8), EFAULT);
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, (void *)-4096L), EFAULT);

	/* Header readable, the rest of the struct on an unmapped page. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map)
		TH_LOG("mmap: %s", strerror(errno));
	ASSERT_EQ(0, munmap(map + page, page))
		TH_LOG("munmap");
	q = (struct rcm_query *)(map + page - 8);
	q->size = sizeof(*q);
	q->flags = 0;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, q), EFAULT);

	/* A read-only struct: the output cannot be written back. */
	q = (struct rcm_query *)map;
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	ASSERT_EQ(0, mprotect(map, page, PROT_READ))
		TH_LOG("mprotect");
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, q), EFAULT);
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
 * struct back, so LISTEN listened and then failed with EFAULT).
 */
TEST(input_only_commands_work_from_read_only_memory)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rcm_set_option opt = { .size = sizeof(opt) };
	struct rcm_listen lis = { .size = sizeof(lis) };
	unsigned int id;
	uint8_t tos = 32;
	void *ro;

	NEED_DEV();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ASSERT_TRUE(id)
		TH_LOG("create: %s", strerror(errno));

	opt.id = id;
	opt.level = RCM_OPTION_ID;
	opt.optname = RCM_OPTION_ID_TOS;
	opt.value = tos;
	ro = read_only_copy(&opt, sizeof(opt));
	ASSERT_NE(NULL, ro)
		TH_LOG("read-only copy: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_SET_OPTION, ro))
		TH_LOG("SET_OPTION from read-only memory: %s", strerror(errno));
	munmap(ro, page);

	lis.id = id;
	lis.backlog = 4;
	ro = read_only_copy(&lis, sizeof(lis));
	ASSERT_NE(NULL, ro)
		TH_LOG("read-only copy: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_LISTEN, ro))
		TH_LOG("LISTEN from read-only memory: %s", strerror(errno));
	/* It listens: a second listen is refused for the id's state. */
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_LISTEN, ro), EINVAL);
	munmap(ro, page);

	ASSERT_EQ(0, rcm_destroy(fd, id))
		TH_LOG("destroy: %s", strerror(errno));
}

TEST(failed_calls_leave_the_file_usable)
{
	struct rcm_query q = { .size = sizeof(q) };

	NEED_DEV();
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_QUERY, &q))
		TH_LOG("query: %s", strerror(errno));
	ASSERT_EQ(RCM_ABI_VERSION, q.out_abi_version)
		TH_LOG("abi %u", q.out_abi_version);
}

TEST(write_and_seek_are_refused)
{
	char buf[8];

	NEED_DEV();
	ASSERT_ERRNO(write(fd, buf, sizeof(buf)), EINVAL);
	ASSERT_TRUE(lseek(fd, 0, SEEK_SET) == -1 && errno == ESPIPE)
		TH_LOG("lseek did not fail with ESPIPE");
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

TEST(every_command_checks_its_header)
{
	union arg a;
	size_t i;

	NEED_DEV();
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *n = cmds[i].name;

		memset(&a, 0, sizeof(a));
		a.hdr.size = 7;
		ASSERT_TRUE(call(cmds[i].nr, &a) == -1 && errno == EINVAL)
			TH_LOG("%s size 7: errno %d", n, errno);
		a.hdr.size = 4097;
		ASSERT_TRUE(call(cmds[i].nr, &a) == -1 && errno == E2BIG)
			TH_LOG("%s size 4097: errno %d", n, errno);
		/* A known size with a non-zero byte the kernel lacks. */
		a.hdr.size = cmds[i].size + 8;
		a.raw[cmds[i].size + 4] = 1;
		ASSERT_TRUE(call(cmds[i].nr, &a) == -1 && errno == E2BIG)
			TH_LOG("%s non-zero tail: errno %d", n, errno);
		a.raw[cmds[i].size + 4] = 0;
		a.hdr.size = cmds[i].size;
		a.hdr.flags = 0x80000000u;
		ASSERT_TRUE(call(cmds[i].nr, &a) == -1 && errno == EOPNOTSUPP)
			TH_LOG("%s unknown flag: errno %d", n, errno);
		ASSERT_TRUE(ioctl(fd, cmds[i].nr, NULL) == -1 &&
			    errno == EFAULT)
			TH_LOG("%s NULL: errno %d", n, errno);
		ASSERT_TRUE(ioctl(fd, cmds[i].nr, (void *)-4096L) == -1 &&
			    errno == EFAULT)
			TH_LOG("%s kernel pointer: errno %d", n, errno);
	}
}

TEST(every_id_command_refuses_unknown_handles)
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
		ASSERT_TRUE(call(cmds[i].nr, &a) == -1 &&
			    (errno == ENOENT || errno == EINVAL ||
			    errno == EAFNOSUPPORT))
			TH_LOG("%s handle %#x: errno %d", cmds[i].name, bad, errno);
	}
}

/*
 * Random bytes behind a valid header and a real id, for every command:
 * whatever the kernel makes of them, it answers 0 or an errno and stays
 * clean (the harness checks the log for splats; the file's close and
 * the module's unload check for leaks).
 */
TEST(random_arguments_on_live_ids)
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

	ASSERT_LE(0, f)
		TH_LOG("open");
	for (round = 0; round < 40; round++) {
		for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			unsigned int id = rcm_create(f, round & 1 ? RCM_PS_UDP :
						     RCM_PS_TCP, round & 1 ?
						     RCM_QPT_UD : RCM_QPT_RC,
						     round);
			bool ok = true;
			int ret;

			ASSERT_TRUE(id)
				TH_LOG("create: %s", strerror(errno));
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
			ASSERT_TRUE(ok)
				TH_LOG("%s round %d: ret %d errno %d", cmds[i].name,
				       round, ret, errno);
			rcm_destroy(f, id);
		}
	}
	close(f);
}

RCM_TEST_MAIN
