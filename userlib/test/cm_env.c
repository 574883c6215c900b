// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_env: $RCM_RESOLVE_TIMEOUT_MS and $RCM_CONNECT_TIMEOUT_MS tune
 * unmodified programs. Each case runs in a child, since the library
 * reads its environment once per process.
 *
 * - both set: every new id gets RCM_OPTION_ID_RESOLVE_TIMEOUT and
 *   RCM_OPTION_ID_CONNECT_TIMEOUT with the values (RC and UD ids, a
 *   synchronous id, an id from rdma_create_ep() and a connection
 *   request's id), and errno is left alone;
 * - one set: only that option;
 * - values that are no timeout (0, -5, +5, " 300", 12ms, 600001, empty,
 *   huge) are ignored: no ioctl;
 * - an older kernel that refuses the options (ENOPROTOOPT): ids are made
 *   all the same, and the id works (rdma_resolve_addr);
 * - the environment is read once: a change after the first call does
 *   nothing.
 *
 * What the real module shows of it (the resolve timeout of RC, UD and
 * synchronous ids, and none without the variable) runs in a guest:
 * guest/cm_env.c. Here: the ioctls, for the ids whose option has no
 * effect there to see (a request id's, rdma_create_ep()'s), the
 * parsing, an older kernel and the single read.
 *
 * The module's replies are scripted over the syscall seam (seam.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

#include <rdma/rdma_cma.h>

#include "cm_helpers.h"

#define SET_OPTION_CALLS()	SEAM_CALLS(RCM_CMD_SET_OPTION)
#define RESOLVE		RCM_OPTION_ID_RESOLVE_TIMEOUT
#define CONNECT		RCM_OPTION_ID_CONNECT_TIMEOUT

/* The RCM_IOCTL_SET_OPTION calls, as the kernel got them. */
static struct {
	int			fd;
	struct rcm_set_option	c;
} options[64];
static int noptions;
static bool timeout_options = true;	/* false: an older kernel's */

static int set_option(int fd, void *arg)
{
	const struct rcm_set_option *c = arg;

	if (!timeout_options)
		return ENOPROTOOPT;
	if (noptions < (int)ARRAY_SIZE(options)) {
		options[noptions].fd = fd;
		options[noptions++].c = *c;
	}
	return 0;
}

/* The last value id h of fd's channel got for optname; 0 if none. */
static uint64_t option(int fd, uint32_t h, uint32_t optname)
{
	int i;

	for (i = noptions - 1; i >= 0; i--)
		if (options[i].fd == fd && options[i].c.id == h &&
		    options[i].c.optname == optname)
			return options[i].c.value;
	return 0;
}

static void set_env(const char *resolve, const char *connect)
{
	seam_reply[SEAM_CMD(RCM_CMD_SET_OPTION)] = set_option;
	if (resolve)
		setenv("RCM_RESOLVE_TIMEOUT_MS", resolve, 1);
	else
		unsetenv("RCM_RESOLVE_TIMEOUT_MS");
	if (connect)
		setenv("RCM_CONNECT_TIMEOUT_MS", connect, 1);
	else
		unsetenv("RCM_CONNECT_TIMEOUT_MS");
}

/* A new id on @ch of @ps; its handle, or 0. */
static uint32_t new_id(struct rdma_event_channel *ch, enum rdma_port_space ps,
		       struct rdma_cm_id **out)
{
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(ch, &id, NULL, ps) == 0);
	if (!id)
		return 0;
	if (out)
		*out = id;
	return SEAM_LAST_HANDLE();
}

static void both(void)
{
	const struct rcm_set_option *last;
	struct sockaddr_in a = { .sin_family = AF_INET };
	const struct rcm_conn_param conn = { .qp_num = 7 };
	struct rdma_cm_event *ev = NULL;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *l = NULL, *sync = NULL;
	uint32_t h, hl, hr;
	int fd;

	set_env("300", "2500");
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	fd = ch->fd;
	errno = EXDEV;
	h = new_id(ch, RDMA_PS_TCP, NULL);
	T_CHECK(errno == EXDEV);
	T_CHECK(SET_OPTION_CALLS() == 2);
	T_CHECK(option(fd, h, RESOLVE) == 300);
	T_CHECK(option(fd, h, CONNECT) == 2500);
	h = new_id(ch, RDMA_PS_UDP, NULL);
	T_CHECK(option(fd, h, RESOLVE) == 300);
	T_CHECK(option(fd, h, CONNECT) == 2500);
	last = SEAM_LAST(rcm_set_option, RCM_CMD_SET_OPTION);
	T_CHECK(last->size == sizeof(*last) &&
		last->flags == 0 &&
		last->level == RCM_OPTION_ID &&
		last->optlen == 0 &&
		last->id == h);

	/* Synchronous: the id's private channel. */
	T_CHECK(rdma_create_id(NULL, &sync, NULL, RDMA_PS_TCP) == 0);
	if (sync) {
		h = SEAM_LAST_HANDLE();
		T_CHECK(option(sync->channel->fd, h, RESOLVE) == 300);
		T_CHECK(option(sync->channel->fd, h, CONNECT) == 2500);
	}

	/* A connection request's id. */
	a.sin_port = htons(18515);
	inet_pton(AF_INET, "192.0.2.10", &a.sin_addr);
	hl = new_id(ch, RDMA_PS_TCP, &l);
	if (!l)
		return;
	T_CHECK(rdma_bind_addr(l, (struct sockaddr *)&a) == 0);
	T_CHECK(rdma_listen(l, 4) == 0);
	hr = script_request(fd, hl, &conn, "r", 2);
	T_CHECK(hr != 0);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	T_CHECK(option(fd, hr, RESOLVE) == 300);
	T_CHECK(option(fd, hr, CONNECT) == 2500);
	if (ev)
		rdma_ack_cm_event(ev);
}

static void endpoint(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rdma_cm_id *id = NULL;
	struct rdma_addrinfo ai;

	set_env("450", NULL);
	a.sin_port = htons(18516);
	memset(&ai, 0, sizeof(ai));
	ai.ai_flags = RAI_PASSIVE;
	ai.ai_family = AF_INET;
	ai.ai_qp_type = IBV_QPT_RC;
	ai.ai_port_space = RDMA_PS_TCP;
	ai.ai_src_addr = (struct sockaddr *)&a;
	ai.ai_src_len = sizeof(a);
	T_CHECK(rdma_create_ep(&id, &ai, NULL, NULL) == 0);
	if (id)
		T_CHECK(option(id->channel->fd, SEAM_LAST_HANDLE(),
			       RESOLVE) == 450);
}

static void connect_only(void)
{
	const struct rcm_set_option *last;
	struct rdma_event_channel *ch;
	uint32_t h;

	set_env(NULL, "1");
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	h = new_id(ch, RDMA_PS_TCP, NULL);
	T_CHECK(SET_OPTION_CALLS() == 1);
	last = SEAM_LAST(rcm_set_option, RCM_CMD_SET_OPTION);
	T_CHECK(last->optname == CONNECT && last->value == 1);
	T_CHECK(option(ch->fd, h, RESOLVE) == 0);
	T_CHECK(option(ch->fd, h, CONNECT) == 1);
}

static const char *const bad_values[] = {
	"0", "-5", "+5", " 300", "12ms", "600001", "", "0x10",
	"99999999999999999999999",
};
static int bad_index;

static void bad_value(void)
{
	struct rdma_event_channel *ch;

	set_env(bad_values[bad_index], bad_values[bad_index]);
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	T_CHECK(new_id(ch, RDMA_PS_TCP, NULL) != 0);
	if (SET_OPTION_CALLS())
		fprintf(stderr, "value \"%s\" was taken\n",
			bad_values[bad_index]);
	T_CHECK(SET_OPTION_CALLS() == 0);
}

/* Each value in a child of its own: the library reads them once. */
static void bad_values_ignored(void)
{
	for (bad_index = 0; bad_index < (int)ARRAY_SIZE(bad_values);
	     bad_index++)
		t_in_child(bad_values[bad_index], bad_value);
}

static void old_kernel(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;

	set_env("600000", "600000");
	timeout_options = false;
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	errno = EXDEV;
	T_CHECK(new_id(ch, RDMA_PS_TCP, &id) != 0);
	T_CHECK(errno == EXDEV);
	T_CHECK(SET_OPTION_CALLS() == 2);
	if (!id)
		return;
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0);
	T_CHECK(SEAM_LAST(rcm_resolve_addr,
			  RCM_CMD_RESOLVE_ADDR)->timeout_ms == 2000);
}

static void read_once(void)
{
	struct rdma_event_channel *ch;
	uint32_t h;

	set_env("700", NULL);
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	set_env("800", "900");
	h = new_id(ch, RDMA_PS_TCP, NULL);
	T_CHECK(option(ch->fd, h, RESOLVE) == 700);
	T_CHECK(option(ch->fd, h, CONNECT) == 0);
}

CM_MAIN(rdma_create_id,
	{ "both: every new id", both },
	{ "rdma_create_ep's id", endpoint },
	{ "one of them", connect_only },
	{ "values that are no timeout", bad_values_ignored },
	{ "older kernel", old_kernel },
	{ "read once", read_once })
