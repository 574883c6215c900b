// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_option: rdma_set_option() checks and converts the value as the
 * in-tree ucma does and issues RCM_IOCTL_SET_OPTION.
 *
 * - each option: the ioctl carries size, flags 0, the id's handle, level
 *   0, the option's name, reserved 0 and the value; TOS and ACK_TIMEOUT
 *   read one byte (the bytes after it do not matter, 0xff is 255), and
 *   the options work on a synchronous id without reading an event;
 * - int options: any non-zero int (5, -1, INT_MIN, 0x100) becomes 1, 0
 *   stays 0, and an unaligned int is read whole;
 * - optlen: TOS and ACK_TIMEOUT need 1, REUSEADDR and AFONLY
 *   sizeof(int); otherwise EINVAL without an ioctl; a NULL optval is
 *   EFAULT with a non-zero optlen (also for unknown options and
 *   IB_PATH, as ucma copies first) and EINVAL with optlen 0; NULL id
 *   EINVAL;
 * - RDMA_OPTION_IB_PATH: EOPNOTSUPP without an ioctl;
 * - unknown levels and names (also RDMA_OPTION_IB with another name, a
 *   negative level) reach the kernel with value 0, and its ENOPROTOOPT
 *   comes back as ucma's ENOSYS
 *   comes back;
 * - kernel errors pass through: ACK_TIMEOUT 32 and ACK_TIMEOUT on a UD
 *   id (EINVAL), one-shot ENOENT, ENODEV, EINVAL.
 *
 * The module is faked (fake_rcm.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include <rdma/rdma_cma.h>

#include "fake_rcm.h"
#include "fake_verbs.h"
#include "helpers.h"

#define SET_OPTION_CALLS()	FAKE_CALLS(RCM_CMD_SET_OPTION)

struct ids {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *tcp;		/* RC */
	struct rdma_cm_id *udp;		/* UD */
	uint32_t tcp_handle;
	uint32_t udp_handle;
};

static bool setup(struct ids *ids)
{
	memset(ids, 0, sizeof(*ids));
	ids->ch = rdma_create_event_channel();
	if (!ids->ch)
		goto fail;
	/* A first id, so that the handles under test are not 1. */
	if (rdma_create_id(ids->ch, &ids->udp, NULL, RDMA_PS_UDP) ||
	    rdma_destroy_id(ids->udp))
		goto fail;
	ids->udp = NULL;
	if (rdma_create_id(ids->ch, &ids->tcp, NULL, RDMA_PS_TCP))
		goto fail;
	ids->tcp_handle = fake_last_create.out_id;
	if (rdma_create_id(ids->ch, &ids->udp, NULL, RDMA_PS_UDP))
		goto fail;
	ids->udp_handle = fake_last_create.out_id;
	if (ids->tcp_handle == ids->udp_handle)
		goto fail;
	return true;
fail:
	T_CHECK(!"setup");
	return false;
}

static void teardown(struct ids *ids)
{
	T_CHECK(rdma_destroy_id(ids->tcp) == 0);
	T_CHECK(rdma_destroy_id(ids->udp) == 0);
	rdma_destroy_event_channel(ids->ch);
}

/* Poison what the fake saw last, so that a stale argument never passes. */
static void poison(void)
{
	memset(&fake_last_set_option, 0xa5, sizeof(fake_last_set_option));
}

/*
 * rdma_set_option() must succeed with exactly one ioctl that carries
 * these fields.
 */
static void expect_ioctl(struct rdma_cm_id *id, uint32_t handle, int level,
			 int optname, void *optval, size_t optlen,
			 uint64_t value)
{
	const struct rcm_set_option *c = &fake_last_set_option;
	int calls = SET_OPTION_CALLS();
	int ret;

	poison();
	errno = 0;
	ret = rdma_set_option(id, level, optname, optval, optlen);
	T_CHECK(ret == 0);
	if (ret)
		fprintf(stderr, "option %d/%d: errno %d\n", level, optname,
			errno);
	T_CHECK(SET_OPTION_CALLS() == calls + 1);
	T_CHECK(c->size == sizeof(*c));
	T_CHECK(c->flags == 0);
	T_CHECK(c->id == handle);
	T_CHECK(c->level == (uint32_t)level);
	T_CHECK(c->optname == (uint32_t)optname);
	T_CHECK(c->reserved == 0);
	T_CHECK(c->value == value);
	if (c->value != value)
		fprintf(stderr, "option %d/%d: value %llu, want %llu\n", level,
			optname, (unsigned long long)c->value,
			(unsigned long long)value);
}

/* rdma_set_option() must fail with err and not call the kernel. */
static void expect_refused(struct rdma_cm_id *id, int level, int optname,
			   void *optval, size_t optlen, int err)
{
	int calls = SET_OPTION_CALLS();

	errno = 0;
	T_CHECK(rdma_set_option(id, level, optname, optval, optlen) == -1);
	T_CHECK(errno == err);
	if (errno != err)
		fprintf(stderr, "option %d/%d optlen %zu: errno %d, want %d\n",
			level, optname, optlen, errno, err);
	T_CHECK(SET_OPTION_CALLS() == calls);
}

/* rdma_set_option() must reach the kernel and fail with its errno. */
static void expect_kernel_error(struct rdma_cm_id *id, int level,
				int optname, void *optval, size_t optlen,
				int err)
{
	int calls = SET_OPTION_CALLS();

	errno = 0;
	T_CHECK(rdma_set_option(id, level, optname, optval, optlen) == -1);
	T_CHECK(errno == err);
	if (errno != err)
		fprintf(stderr, "option %d/%d: errno %d, want %d\n", level,
			optname, errno, err);
	T_CHECK(SET_OPTION_CALLS() == calls + 1);
}

static void each_option(void)
{
	/* One-byte options: only the first byte counts. */
	uint8_t tos[4] = { 0x68, 0x01, 0x02, 0x03 };
	uint8_t ack[4] = { 14, 0xff, 0xff, 0xff };
	uint8_t u8 = 0xff;
	int one = 1, zero = 0;
	struct ids ids;

	if (!setup(&ids))
		return;
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_TOS, tos, 1, 0x68);
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_TOS, &u8, 1, 255);
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_ACK_TIMEOUT, ack, 1, 14);
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one), 1);
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_REUSEADDR, &zero, sizeof(zero), 0);
	expect_ioctl(ids.udp, ids.udp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_AFONLY, &one, sizeof(one), 1);
	expect_ioctl(ids.udp, ids.udp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_AFONLY, &zero, sizeof(zero), 0);
	expect_ioctl(ids.udp, ids.udp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_TOS, tos, 1, 0x68);
	teardown(&ids);
}

static void int_normalised(void)
{
	static const int nonzero[] = { 5, -1, INT_MIN, INT_MAX, 0x100, 2 };
	unsigned char buf[sizeof(int) + 1];
	struct ids ids;
	unsigned int i;
	int v;

	if (!setup(&ids))
		return;
	for (i = 0; i < ARRAY_SIZE(nonzero); i++) {
		v = nonzero[i];
		expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
			     RDMA_OPTION_ID_REUSEADDR, &v, sizeof(v), 1);
		expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
			     RDMA_OPTION_ID_AFONLY, &v, sizeof(v), 1);
	}
	/* Unaligned; only the int's last byte is non-zero. */
	v = 0x100;
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 1, &v, sizeof(v));
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_REUSEADDR, buf + 1, sizeof(v), 1);
	memset(buf, 0, sizeof(buf));
	buf[0] = 1;	/* outside the int */
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_AFONLY, buf + 1, sizeof(v), 0);
	teardown(&ids);
}

static void optlen_checks(void)
{
	static const size_t bad_u8[] = { 0, 2, 4, 8, sizeof(int) };
	static const size_t bad_int[] = { 0, 1, 2, 8, sizeof(long) + 1 };
	static const int u8_opts[] = {
		RDMA_OPTION_ID_TOS, RDMA_OPTION_ID_ACK_TIMEOUT,
	};
	static const int int_opts[] = {
		RDMA_OPTION_ID_REUSEADDR, RDMA_OPTION_ID_AFONLY,
	};
	uint8_t buf[16] = { 1 };
	struct ids ids;
	unsigned int i, j;
	int one = 1;

	if (!setup(&ids))
		return;
	for (i = 0; i < ARRAY_SIZE(u8_opts); i++) {
		for (j = 0; j < ARRAY_SIZE(bad_u8); j++)
			expect_refused(ids.tcp, RDMA_OPTION_ID, u8_opts[i],
				       buf, bad_u8[j], EINVAL);
		expect_refused(ids.tcp, RDMA_OPTION_ID, u8_opts[i],
			       NULL, 0, EINVAL);
		expect_refused(ids.tcp, RDMA_OPTION_ID, u8_opts[i],
			       NULL, 1, EFAULT);
	}
	for (i = 0; i < ARRAY_SIZE(int_opts); i++) {
		for (j = 0; j < ARRAY_SIZE(bad_int); j++)
			expect_refused(ids.tcp, RDMA_OPTION_ID, int_opts[i],
				       buf, bad_int[j], EINVAL);
		expect_refused(ids.tcp, RDMA_OPTION_ID, int_opts[i],
			       NULL, 0, EINVAL);
		expect_refused(ids.tcp, RDMA_OPTION_ID, int_opts[i],
			       NULL, sizeof(int), EFAULT);
	}
	/* ucma copies the value before it looks at level and name. */
	expect_refused(ids.tcp, RDMA_OPTION_ID, 99, NULL, 4, EFAULT);
	expect_refused(ids.tcp, 7, 0, NULL, 1, EFAULT);
	expect_refused(NULL, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR,
		       &one, sizeof(one), EINVAL);
	/* The right lengths still work after all that. */
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one), 1);
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_TOS, buf, 1, 1);
	teardown(&ids);
}

static void ib_path_refused(void)
{
	uint8_t path[72 * 2] = { 0 };
	struct ids ids;

	if (!setup(&ids))
		return;
	expect_refused(ids.tcp, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
		       path, 72, EOPNOTSUPP);
	expect_refused(ids.tcp, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
		       path, sizeof(path), EOPNOTSUPP);
	expect_refused(ids.tcp, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
		       path, 5, EOPNOTSUPP);
	expect_refused(ids.udp, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
		       NULL, 0, EOPNOTSUPP);
	expect_refused(ids.tcp, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
		       NULL, 72, EFAULT);
	teardown(&ids);
}

static void unknown_passed_through(void)
{
	uint8_t buf[16];
	struct ids ids;

	if (!setup(&ids))
		return;
	memset(buf, 0x5a, sizeof(buf));
	expect_kernel_error(ids.tcp, RDMA_OPTION_ID, 4, buf, 1, ENOSYS);
	T_CHECK(fake_last_set_option.level == RCM_OPTION_ID);
	T_CHECK(fake_last_set_option.optname == 4);
	T_CHECK(fake_last_set_option.value == 0);
	T_CHECK(fake_last_set_option.id == ids.tcp_handle);
	T_CHECK(fake_last_set_option.reserved == 0);

	expect_kernel_error(ids.tcp, RDMA_OPTION_ID, -1, buf, sizeof(buf),
			    ENOSYS);
	T_CHECK(fake_last_set_option.optname == 0xffffffffu);
	T_CHECK(fake_last_set_option.value == 0);

	expect_kernel_error(ids.tcp, RDMA_OPTION_IB, 0, buf, 1, ENOSYS);
	T_CHECK(fake_last_set_option.level == RDMA_OPTION_IB);
	T_CHECK(fake_last_set_option.optname == 0);

	expect_kernel_error(ids.udp, 2, RDMA_OPTION_ID_TOS, NULL, 0,
			    ENOSYS);
	T_CHECK(fake_last_set_option.level == 2);
	T_CHECK(fake_last_set_option.id == ids.udp_handle);
	T_CHECK(fake_last_set_option.value == 0);

	expect_kernel_error(ids.tcp, -1, RDMA_OPTION_ID_TOS, buf, 1,
			    ENOSYS);
	T_CHECK(fake_last_set_option.level == 0xffffffffu);
	/* Unknown levels are not checked for the ID options' lengths. */
	T_CHECK(fake_last_set_option.value == 0);
	teardown(&ids);
}

static void kernel_errors(void)
{
	static const int errs[] = { ENOENT, ENODEV, EINVAL, EPERM };
	uint8_t v;
	struct ids ids;
	unsigned int i;
	int one = 1;

	if (!setup(&ids))
		return;
	/* The kernel's range and QP type checks. */
	v = 32;
	expect_kernel_error(ids.tcp, RDMA_OPTION_ID,
			    RDMA_OPTION_ID_ACK_TIMEOUT, &v, 1, EINVAL);
	T_CHECK(fake_last_set_option.value == 32);
	v = 31;
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_ACK_TIMEOUT, &v, 1, 31);
	v = 14;
	expect_kernel_error(ids.udp, RDMA_OPTION_ID,
			    RDMA_OPTION_ID_ACK_TIMEOUT, &v, 1, EINVAL);
	T_CHECK(fake_last_set_option.id == ids.udp_handle);

	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		fake_rcm_fail_next(RCM_CMD_SET_OPTION, errs[i]);
		expect_kernel_error(ids.tcp, RDMA_OPTION_ID,
				    RDMA_OPTION_ID_REUSEADDR, &one,
				    sizeof(one), errs[i]);
	}
	/* The failures left the id usable. */
	expect_ioctl(ids.tcp, ids.tcp_handle, RDMA_OPTION_ID,
		     RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one), 1);
	teardown(&ids);
}

/* A synchronous id: the call waits for nothing and keeps id->event. */
static void sync_id(void)
{
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *held;
	struct sockaddr_in dst = { .sin_family = AF_INET };
	uint32_t handle;
	uint8_t tos = 0x20;
	int reads;

	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	dst.sin_addr.s_addr = htonl(0xc0000214);	/* 192.0.2.20 */
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)) {
		T_CHECK(!"setup");
		return;
	}
	handle = fake_last_create.out_id;
	reads = fake_read_calls;
	expect_ioctl(id, handle, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1,
		     0x20);
	T_CHECK(fake_read_calls == reads);
	T_CHECK(id->event == NULL);

	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 100) ==
		0);
	held = id->event;
	T_CHECK(held != NULL);
	reads = fake_read_calls;
	expect_ioctl(id, handle, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1,
		     0x20);
	T_CHECK(fake_read_calls == reads);
	T_CHECK(id->event == held);
	T_CHECK(rdma_destroy_id(id) == 0);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_set_option);
	fake_rcm_init();

	t_in_child("each option's ioctl", each_option);
	t_in_child("int options: non-zero is 1", int_normalised);
	t_in_child("optlen and optval checks", optlen_checks);
	t_in_child("IB_PATH refused without an ioctl", ib_path_refused);
	t_in_child("unknown levels and names reach the kernel",
		   unknown_passed_through);
	t_in_child("kernel errors pass through", kernel_errors);
	t_in_child("synchronous id", sync_id);
	return t_exit();
}
