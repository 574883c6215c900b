/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib tests: what the host programs on the seam (cm_*.c) share.
 * Every wait is bounded: a hang fails the check instead of the run.
 */
#ifndef RCM_TEST_CM_HELPERS_H
#define RCM_TEST_CM_HELPERS_H

#include <pthread.h>

#include <rdma/rdma_cma.h>

#include "helpers.h"
#include "script.h"

/* A case of a program: what it checks, and the function run in a child. */
struct cm_case {
	const char	*what;
	void		(*fn)(void);
};

/*
 * The main() of a program: T_EXIT_SKIP with arguments, else script_cm()
 * and each case in a child (t_in_child()) after checking that symbol is
 * the library's under test; the exit code of t_exit().
 */
int cm_main(int argc, const void *symbol, const struct cm_case *cases,
	    unsigned int n);

/* A program's main(): cm_main() of symbol and the cases given. */
#define CM_MAIN(symbol, ...)						\
int main(int argc, char *argv[])					\
{									\
	static const struct cm_case cases[] = { __VA_ARGS__ };		\
									\
	(void)argv;							\
	return cm_main(argc, (const void *)(symbol), cases,		\
		       ARRAY_SIZE(cases));				\
}

void cm_set_nonblock(int fd);

/* No event on c now: rdma_get_cm_event() fails with EAGAIN. */
void cm_expect_none(struct rdma_event_channel *c);

/* Join thread within ms milliseconds; false (thread left) on timeout. */
bool cm_join_within(pthread_t thread, int ms);

/* rdma_destroy_id() in a thread of its own. */
struct cm_destroyer {
	struct rdma_cm_id	*id;
	pthread_t		thread;
	int			ret;
	int			done;	/* __atomic: read while it runs */
};

void cm_start_destroy(struct cm_destroyer *d, struct rdma_cm_id *id);
/* cm_start_destroy(), and it returns 0 within 2 s. */
void cm_destroy_promptly(struct rdma_cm_id *id);

/* rdma_get_cm_event() of c in a thread of its own: ev, NULL on failure. */
struct cm_getter {
	struct rdma_event_channel *c;
	struct rdma_cm_event	*ev;
	pthread_t		thread;
};

void cm_start_get(struct cm_getter *g, struct rdma_event_channel *c);

/*
 * The port the cases' listeners take: the scripted module has no port
 * space, so any number serves, the same in every program.
 */
#define CM_LISTEN_PORT	20100

/*
 * Clear script_qp_attr and give its INIT, RTR and RTS entries the
 * attribute masks the in-tree CM answers for an RC QP; the values are
 * the caller's.
 */
void cm_script_rc_qp_attr(void);

/* The connection parameters of the requests the scripted module makes. */
extern const struct rcm_conn_param cm_request_conn;

/*
 * A TCP id with context ctx on c (NULL: synchronous), listening on
 * 192.0.2.10:port; its handle in *handle.
 */
struct rdma_cm_id *cm_listener(struct rdma_event_channel *c, void *ctx,
			       uint16_t port, uint32_t *handle);

#endif /* RCM_TEST_CM_HELPERS_H */
