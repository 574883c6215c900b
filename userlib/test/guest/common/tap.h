/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * tap: what the userlib's guest test programs share - kselftest exit
 * codes, TAP result lines, a CHECK() that explains itself, a deadline
 * for the whole program and IPv4 address parsing.
 */
#ifndef _RCM_GUEST_TAP_H
#define _RCM_GUEST_TAP_H

#include <errno.h>
#include <netinet/in.h>
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

#endif /* _RCM_GUEST_TAP_H */
