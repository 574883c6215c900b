/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * tap: what the userlib's guest test programs share - kselftest exit
 * codes, TAP result lines, a CHECK() that explains itself, a deadline
 * for the whole program, the start every Soft-RoCE program makes, IPv4
 * address parsing and the small QPs the programs connect.
 */
#ifndef _RCM_GUEST_TAP_H
#define _RCM_GUEST_TAP_H

#include <errno.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

/* Set by tap_result() when a test failed. */
extern int tap_failed;

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

/* Print "ok N name" or "not ok N name" (and remember the failure). */
void tap_result(int n, const char *name, bool ok);

/* Line-buffered stdout and the TAP version line. */
void tap_start(void);

/* The plan: "1..ntests". */
void tap_plan(int ntests);

/* Bail out and exit KSFT_FAIL if the program runs beyond @seconds. */
void tap_deadline(unsigned int seconds);

/* The exit status for the results so far. */
int tap_exit_status(void);

/* @ip (dotted quad) and @port into @sin; false if @ip does not parse. */
bool tap_parse_ipv4(const char *ip, int port, struct sockaddr_in *sin);

/*
 * tap_start(), then $RCM_ADDR_RXE: NULL (and the skip line: exit
 * KSFT_SKIP) when it is not set, else the plan and a deadline of
 * @seconds, and the address.
 */
const char *tap_rxe_start(int ntests, unsigned int seconds);

/*
 * QP attributes of @type with @wr send and receive work requests of one
 * SGE each, every send signalled.
 */
void tap_qp_attr(struct ibv_qp_init_attr *attr, enum ibv_qp_type type,
		 unsigned int wr);

/* rdma_create_qp() of tap_qp_attr() on @id's default PD and CQs. */
bool tap_create_qp(struct rdma_cm_id *id, enum ibv_qp_type type,
		   unsigned int wr);

#endif /* _RCM_GUEST_TAP_H */
