/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * guest: what the userlib's guest test programs share besides their TAP,
 * which comes from the kernel's own kselftest_harness.h (through
 * rcm_ksft.h of tools/testing/selftests/rcm: TEST(), the fork and the
 * timeout per case) or, for the programs whose results are phases of
 * one run, its kselftest.h (ksft_test_result()). Here: a CHECK() that
 * explains itself, a deadline for a whole program, IPv4 address parsing,
 * ports the kernel chooses (bind to port 0: no program names a port
 * number) and the small QPs the programs connect.
 */
#ifndef _RCM_GUEST_H
#define _RCM_GUEST_H

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Evaluates to cond; prints where and why (errno) when it is false. */
#define CHECK(cond)							\
	({								\
		bool ok_ = (cond);					\
		if (!ok_)						\
			printf("# %s:%d: check failed: %s (errno %d: %s)\n", \
			       __FILE__, __LINE__, #cond, errno,	\
			       strerror(errno));			\
		ok_;							\
	})

/*
 * In a TEST(): the value of the guest's environment variable @name (an
 * address, RCM_ADDR_*) in @var, or a skip of the case when it is not set.
 */
#define GUEST_ENV_OR_SKIP(var, name)					\
	const char *var = getenv(name);					\
	if (!var || !*var)						\
		SKIP(return, "%s is not set", name)

/* The Soft-RoCE address $RCM_ADDR_RXE, and the silent neighbour. */
#define GUEST_RXE_OR_SKIP(var)	GUEST_ENV_OR_SKIP(var, "RCM_ADDR_RXE")
#define GUEST_SILENT_OR_SKIP(var) GUEST_ENV_OR_SKIP(var, "RCM_ADDR_SILENT")

/*
 * A case @name that needs the Soft-RoCE address (as const char *rxe)
 * and passes when @passed, an expression of rxe, is true.
 */
#define GUEST_RXE_TEST(name, passed)					\
	TEST(name)							\
	{								\
		GUEST_RXE_OR_SKIP(rxe);					\
		ASSERT_TRUE(passed);					\
	}

/*
 * The connection parameters most cases connect with: depths of 1, which
 * any device gives, and the retry counts' 3-bit maximum, 7. For
 * struct rdma_conn_param cp = GUEST_CONN_PARAM;
 */
#define GUEST_CONN_PARAM						\
	{								\
		.responder_resources = 1, .initiator_depth = 1,		\
		.retry_count = 7, .rnr_retry_count = 7,			\
	}

/*
 * Bail out and exit 1 (KSFT_FAIL) if the program runs beyond @seconds:
 * for the programs whose results are phases of one run (the harness's
 * programs have a timeout per case).
 */
void guest_deadline(unsigned int seconds);

/* @ip (dotted quad) and @port into @sin; false if @ip does not parse. */
bool guest_parse_ipv4(const char *ip, int port, struct sockaddr_in *sin);

/*
 * QP attributes of @type with @wr send and receive work requests of one
 * SGE each, every send signalled.
 */
void guest_qp_attr(struct ibv_qp_init_attr *attr, enum ibv_qp_type type,
		   unsigned int wr);

/*
 * Whether the librdmacm.so.1 this program runs on is rcm's (the guest
 * points LD_LIBRARY_PATH at /usr/lib/rcm) rather than the distribution's
 * (an in-tree control): for the few cases where the two answer
 * differently by design, each such difference said in the program.
 */
bool guest_on_rcm(void);

/* rdma_create_qp() of guest_qp_attr() on @id's default PD and CQs. */
bool guest_create_qp(struct rdma_cm_id *id, enum ibv_qp_type type,
		     unsigned int wr);

/*
 * The next event of @ch within 10 s, which must be @type and, if @id is
 * not NULL, for @id: the event (the caller acks it), or NULL after a
 * diagnostic line. A non-blocking @ch is polled; so is a blocking one.
 * Each wait is for 10 s again when a record yields no event (EAGAIN).
 */
struct rdma_cm_event *guest_next_event(struct rdma_event_channel *ch,
				       enum rdma_cm_event_type type,
				       struct rdma_cm_id *id);

/* guest_next_event() with status 0, acked: true when so. */
bool guest_expect_event(struct rdma_event_channel *ch,
			enum rdma_cm_event_type type, struct rdma_cm_id *id);

/* Nothing is pending on @ch: its fd does not poll readable now. */
bool guest_quiet(struct rdma_event_channel *ch);

/* Destroys @id (if not NULL), its QP first. */
void guest_destroy_id(struct rdma_cm_id *id);

/* A new non-blocking event channel, or NULL. */
struct rdma_event_channel *guest_channel(void);

/* @id's source port in host order (rdma_get_src_port()). */
unsigned short guest_port(struct rdma_cm_id *id);

/*
 * An id of @ps with context @ctx on @ch (NULL: synchronous) bound to
 * @ip, port 0 (guest_port() reads the port the bind chose); or NULL
 * after a diagnostic.
 */
struct rdma_cm_id *guest_bound(struct rdma_event_channel *ch, const char *ip,
			       enum rdma_port_space ps, void *ctx);

/*
 * @n different ports of @ip no id of @ps holds, in @ports: the ones binds
 * to port 0 chose for ids that are gone again (a destination nobody
 * listens on, or a port a case binds itself), as the selftests'
 * rcm_free_port(). False after a diagnostic.
 */
bool guest_free_ports(const char *ip, enum rdma_port_space ps,
		      unsigned short *ports, unsigned int n);

/* One port of guest_free_ports(), or 0 after a diagnostic. */
unsigned short guest_free_port(const char *ip, enum rdma_port_space ps);

/* @ip and guest_free_port() of @ps into @sin; false if either fails. */
bool guest_free_addr(const char *ip, enum rdma_port_space ps,
		     struct sockaddr_in *sin);

/*
 * An id of @ps with context @ctx on @ch (NULL: synchronous) bound to
 * @ip and a port the bind chose (guest_port() reads it), listening with
 * backlog 4; or NULL after a diagnostic.
 */
struct rdma_cm_id *guest_listener(struct rdma_event_channel *ch,
				  const char *ip, enum rdma_port_space ps,
				  void *ctx);

/*
 * An id of @ps on the asynchronous channel @ch whose address and route
 * to @ip:@port are resolved (both events taken), or NULL after a
 * diagnostic.
 */
struct rdma_cm_id *guest_routed(struct rdma_event_channel *ch,
				const char *ip, int port,
				enum rdma_port_space ps);

/*
 * A client of @ps on @ch routed to @ip:@port, with a QP of 4 work
 * requests (UD for RDMA_PS_UDP, else RC), whose rdma_connect() with @cp
 * returned 0: the id, or NULL after a diagnostic.
 */
struct rdma_cm_id *guest_connecting(struct rdma_event_channel *ch,
				    const char *ip, int port,
				    enum rdma_port_space ps,
				    struct rdma_conn_param *cp);

/*
 * Both ends of one connection in one process, each on its own
 * non-blocking channel: @chs holds the listener and, once the request
 * is taken, @server; @chc the client.
 */
struct guest_pair {
	struct rdma_event_channel *chc, *chs;
	struct rdma_cm_id *listener, *client, *server;
};

/*
 * A listener of @ps on @ip (guest_listener()) and a client routed to it,
 * with a QP of @wr work requests (guest_create_qp(); UD for RDMA_PS_UDP,
 * else RC) unless @wr is 0: true, or false after a diagnostic
 * (guest_pair_teardown() cleans up either way).
 */
bool guest_pair_setup_ps(struct guest_pair *p, const char *ip,
			 enum rdma_port_space ps, unsigned int wr);

/* guest_pair_setup_ps() of RDMA_PS_TCP. */
bool guest_pair_setup(struct guest_pair *p, const char *ip, unsigned int wr);

/*
 * The client of @p connects with @cp and the listener takes the request:
 * its event (to be acked), the request id in p->server with an RC QP of
 * @wr work requests unless @wr is 0; or NULL after a diagnostic.
 */
struct rdma_cm_event *guest_pair_request(struct guest_pair *p,
					 struct rdma_conn_param *cp,
					 unsigned int wr);

/* Destroys what guest_pair_setup() and the case made, QPs first. */
void guest_pair_teardown(struct guest_pair *p);

/* @len bytes of @fill in @data, and they are @cp's private data. */
void guest_private_data(struct rdma_conn_param *cp, uint8_t *data,
			uint8_t len, uint8_t fill);

/*
 * After request id @id's accept with one byte of private data over the
 * limit @max was refused (EINVAL): on rcm, which refuses before the
 * kernel, the request still waits, and @cp with @max bytes establishes
 * @client (on @chc); on the in-tree stack, rdma_ucm's accept also ended
 * the request, and @client hears @refusal with @status. True if so, or
 * false after a diagnostic.
 */
bool guest_accept_after_refusal(struct rdma_cm_id *id,
				struct rdma_conn_param *cp, uint8_t max,
				struct rdma_event_channel *chc,
				struct rdma_cm_id *client,
				enum rdma_cm_event_type refusal, int status);

/*
 * rdma_destroy_id(@id) as a thread's function: its return value (0 or
 * -1) as the thread's.
 */
void *guest_destroy_thread(void *id);

/*
 * A librdmacm call that may block, for a thread of its own to make
 * (guest_call_thread() is the thread's function), with the fields it
 * uses: GUEST_GET_CM_EVENT rdma_get_cm_event(ch, &ev), GUEST_GET_REQUEST
 * rdma_get_request(id, &req), GUEST_MIGRATE_ID rdma_migrate_id(id, ch),
 * GUEST_LEAVE_MULTICAST rdma_leave_multicast(id, addr). @ret is the
 * call's return value once it returned (the caller sets another first,
 * -2).
 */
struct guest_call {
	enum {
		GUEST_GET_CM_EVENT,
		GUEST_GET_REQUEST,
		GUEST_MIGRATE_ID,
		GUEST_LEAVE_MULTICAST,
	}				op;
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
	struct sockaddr			*addr;
	struct rdma_cm_event		*ev;
	struct rdma_cm_id		*req;
	int				ret;
};

/* Makes the struct guest_call @call's call: a thread's function. */
void *guest_call_thread(void *call);

/* @fd polls readable (POLLIN) within @ms. */
bool guest_readable(int fd, int ms);

/*
 * The client's side of a synchronous accept, in a thread of its own:
 * client @id's ESTABLISHED on its channel @ch (guest_expect_event()),
 * which sends the RTU the accept waits for.
 */
struct guest_establisher {
	pthread_t			thread;
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
	bool				ok;
};

/* Starts @e's thread for @id on @ch: false after a diagnostic. */
bool guest_establish_start(struct guest_establisher *e,
			   struct rdma_event_channel *ch,
			   struct rdma_cm_id *id);

/* @e's thread ended within 10 s, having had the ESTABLISHED. */
bool guest_establish_end(struct guest_establisher *e);

/* pthread_timedjoin_np() of @t within @ms into *@ret: true if it ended. */
bool guest_join_within(pthread_t t, int ms, void **ret);

/* The state of @qp (ibv_query_qp()), -1 if the query fails. */
int guest_qp_state(struct ibv_qp *qp);

#endif /* _RCM_GUEST_H */
