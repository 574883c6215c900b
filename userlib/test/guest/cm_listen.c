// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_listen: an rcm listener through librdmacm.so.1 (rcm) receives a
 * connection request from an in-tree peer and rejects it, in a guest
 * with a Soft-RoCE device. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * The peer is ./intree_client (tools/testing/selftests/rcm), which
 * connects with rdma-core's librdmacm on the kernel's rdma_cm: it runs
 * with LD_LIBRARY_PATH reset to the distribution's library directories,
 * so that it does not load this librdmacm.so.1.
 *
 * 1. async: a listener on a channel, bound to RCM_ADDR_RXE and a port
 *    the bind chose; the client connects with private data "hello-lib";
 *    CONNECT_REQUEST with listen_id == the listener, a new id with
 *    verbs set and the listener's context, the private data; then
 *    rdma_reject(id, "nope", 5), and the client sees REJECTED with
 *    reason 28 and "nope" (exit 0); destroy both ids;
 * 2. sync: the same with a NULL channel and rdma_get_request(), the
 *    event in id->event, and the request id on a private channel of its
 *    own, which does not share the listener's O_NONBLOCK; reject with
 *    "sync-no".
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set, or no /dev/infiniband/rdma_cm for the in-tree client).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"

/* Distribution library directories for the in-tree client. */
#define SYSTEM_LIBS	"/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu"

/* Start ./intree_client against @ip and @l's port; -1 on failure. */
static pid_t start_client(const char *ip, struct rdma_cm_id *l,
			  const char *data, const char *expect)
{
	char port[8];
	pid_t pid;

	snprintf(port, sizeof(port), "%hu", guest_port(l));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* Debian's librdmacm on rdma_cm.ko, not ours. */
		setenv("LD_LIBRARY_PATH", SYSTEM_LIBS, 1);
		execl("./intree_client", "intree_client", ip, port, data,
		      expect, (char *)NULL);
		_exit(3);
	}
	return pid;
}

/* The client's exit status, 128 + signal, or -1. */
static int client_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* Wait up to 15 s for an event on fd, so that a lost request fails. */
static bool wait_event(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 15000) == 1;
}

/*
 * What a CONNECT_REQUEST with the given data must look like. Its id is on
 * the listener's channel, or for a synchronous listener on a private
 * channel of its own (as librdmacm's ucma_process_conn_req() moves it).
 */
static bool check_request(struct rdma_cm_event *ev, struct rdma_cm_id *l,
			  const char *data, void *ctx, bool sync)
{
	const struct sockaddr_in *dst;
	struct rdma_cm_id *id = ev->id;
	bool ok = true;

	ok &= CHECK(ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	ok &= CHECK(ev->status == 0);
	ok &= CHECK(ev->listen_id == l);
	ok &= CHECK(id != NULL && id != l);
	if (!id)
		return false;
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		printf("# got %s, status %d\n", rdma_event_str(ev->event),
		       ev->status);
	ok &= CHECK(id->verbs != NULL);
	ok &= CHECK(id->port_num == 1);
	ok &= CHECK(id->context == ctx);
	ok &= CHECK(sync ? id->channel != l->channel :
			   id->channel == l->channel);
	ok &= CHECK(rdma_get_src_port(id) == rdma_get_src_port(l));
	dst = (const struct sockaddr_in *)rdma_get_peer_addr(id);
	ok &= CHECK(dst->sin_family == AF_INET);
	ok &= CHECK(ev->param.conn.private_data_len == 56);
	ok &= CHECK(ev->param.conn.private_data &&
		    !memcmp(ev->param.conn.private_data, data,
			    strlen(data) + 1));
	ok &= CHECK(ev->param.conn.qp_num != 0);
	if (id->verbs)
		printf("# request on %s port %u from %s:%u\n",
		       id->verbs->device->name, id->port_num,
		       inet_ntoa(dst->sin_addr), ntohs(rdma_get_dst_port(id)));
	return ok;
}

static bool do_async_reject(const char *ip)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *l, *id = NULL;
	bool ok = true;
	int ctx, st;
	pid_t pid;

	ch = rdma_create_event_channel();
	if (!CHECK(ch != NULL))
		return false;
	l = guest_listener(ch, ip, RDMA_PS_TCP, &ctx);
	if (!l) {
		rdma_destroy_event_channel(ch);
		return false;
	}
	pid = start_client(ip, l, "hello-lib", "reject:28:nope");
	if (!CHECK(pid > 0)) {
		ok = false;
		goto out;
	}
	if (!CHECK(wait_event(ch->fd)) ||
	    !CHECK(rdma_get_cm_event(ch, &ev) == 0)) {
		kill(pid, SIGKILL);
		client_status(pid);
		ok = false;
		goto out;
	}
	ok &= check_request(ev, l, "hello-lib", &ctx, false);
	id = ev->id;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		ok &= CHECK(rdma_reject(id, "nope", 5) == 0);
	st = client_status(pid);
	if (st)
		printf("# intree_client exit status %d\n", st);
	ok &= CHECK(st == 0);
	ok &= CHECK(rdma_ack_cm_event(ev) == 0);
	if (id && id != l)
		ok &= CHECK(rdma_destroy_id(id) == 0);
out:
	ok &= CHECK(rdma_destroy_id(l) == 0);
	rdma_destroy_event_channel(ch);
	return ok;
}

static bool do_sync_reject(const char *ip)
{
	struct rdma_cm_id *l, *id = NULL;
	bool ok = true;
	int ctx, st;
	pid_t pid;

	l = guest_listener(NULL, ip, RDMA_PS_TCP, &ctx);
	if (!l)
		return false;
	/* A request id's own channel does not take it over. */
	ok &= CHECK(fcntl(l->channel->fd, F_SETFL,
			  fcntl(l->channel->fd, F_GETFL) | O_NONBLOCK) == 0);
	pid = start_client(ip, l, "hello-sync", "reject:28:sync-no");
	if (!CHECK(pid > 0)) {
		ok = false;
		goto out;
	}
	if (!CHECK(wait_event(l->channel->fd)) ||
	    !CHECK(rdma_get_request(l, &id) == 0)) {
		kill(pid, SIGKILL);
		client_status(pid);
		ok = false;
		goto out;
	}
	ok &= CHECK(id->event != NULL);
	ok &= CHECK(!(fcntl(id->channel->fd, F_GETFL) & O_NONBLOCK));
	if (id->event) {
		ok &= CHECK(id->event->id == id);
		ok &= check_request(id->event, l, "hello-sync", &ctx,
				     true);
	}
	ok &= CHECK(rdma_reject(id, "sync-no", 8) == 0);
	st = client_status(pid);
	if (st)
		printf("# intree_client exit status %d\n", st);
	ok &= CHECK(st == 0);
	/* Acks id->event, which the listener's destroy would wait for. */
	ok &= CHECK(rdma_destroy_id(id) == 0);
out:
	ok &= CHECK(rdma_destroy_id(l) == 0);
	return ok;
}

/* The in-tree client needs the in-tree CM's device. */
#define INTREE_OR_SKIP()						\
	do {								\
		if (access("/dev/infiniband/rdma_cm", R_OK | W_OK))	\
			SKIP(return,					\
			     "no /dev/infiniband/rdma_cm for the in-tree client"); \
	} while (0)

TEST(async_reject)
{
	GUEST_RXE_OR_SKIP(rxe);
	INTREE_OR_SKIP();
	ASSERT_TRUE(do_async_reject(rxe));
}

TEST(sync_get_request_reject)
{
	GUEST_RXE_OR_SKIP(rxe);
	INTREE_OR_SKIP();
	ASSERT_TRUE(do_sync_reject(rxe));
}

RCM_TEST_MAIN
