/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * guest_rs: what the userlib's rsocket guest programs (rs_*.c), stream
 * and datagram alike, share that asserts through the kernel's
 * kselftest_harness.h: for programs that include rcm_ksft.h (before this
 * header) only, as guest_ksft.h.
 */
#ifndef _RCM_GUEST_RS_H
#define _RCM_GUEST_RS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/select.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "guest.h"

#define GUEST_RS_WAIT_MS	10000	/* for data on a local device */

/*
 * @s was closed (rclose()), and its number is no rsocket any more:
 * rsetsockopt() and rfcntl() fail with EBADF, and rclose() returns the
 * positive EBADF with errno untouched (librdmacm's convention). The
 * data calls' EBADF, which differ between stream and datagram, are the
 * caller's to check.
 */
static inline void guest_rs_assert_closed(struct __test_metadata *_metadata,
					  int s)
{
	int one = 1;

	errno = 0;
	EXPECT_EQ(-1, rsetsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one,
				  sizeof(one)));
	EXPECT_EQ(EBADF, errno);
	errno = 0;
	EXPECT_EQ(-1, rfcntl(s, F_GETFL));
	EXPECT_EQ(EBADF, errno);
	errno = 0;
	EXPECT_EQ(EBADF, rclose(s));
	EXPECT_EQ(0, errno);
}

/* rpoll() says @s is writable and not readable: POLLOUT alone. */
static inline void guest_rs_assert_writable(struct __test_metadata *_metadata,
					    int s)
{
	struct pollfd p = { .fd = s, .events = POLLIN | POLLOUT };

	ASSERT_EQ(1, rpoll(&p, 1, GUEST_RS_WAIT_MS));
	EXPECT_EQ(POLLOUT, p.revents);
	p.events = POLLIN;
	EXPECT_EQ(0, rpoll(&p, 1, 0));
}

/*
 * Data is on its way to @s: rpoll() says POLLIN once it came, and then
 * so together with an ordinary pipe's POLLIN in the same call;
 * rselect() agrees. The caller reads the data.
 */
static inline void guest_rs_assert_readable(struct __test_metadata *_metadata,
					    int s)
{
	struct timeval tv = { .tv_sec = GUEST_RS_WAIT_MS / 1000 };
	struct pollfd p[2];
	fd_set rd;
	int pfd[2];

	ASSERT_EQ(0, pipe(pfd));
	p[0] = (struct pollfd){ .fd = s, .events = POLLIN };
	ASSERT_EQ(1, rpoll(p, 1, GUEST_RS_WAIT_MS));
	EXPECT_EQ(POLLIN, p[0].revents);
	ASSERT_EQ(1, write(pfd[1], "x", 1));
	p[0] = (struct pollfd){ .fd = s, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = pfd[0], .events = POLLIN };
	ASSERT_EQ(2, rpoll(p, 2, GUEST_RS_WAIT_MS));
	EXPECT_EQ(POLLIN, p[0].revents);
	EXPECT_EQ(POLLIN, p[1].revents);

	FD_ZERO(&rd);
	FD_SET(s, &rd);
	FD_SET(pfd[0], &rd);
	EXPECT_EQ(2, rselect((s > pfd[0] ? s : pfd[0]) + 1, &rd, NULL, NULL,
			     &tv));
	EXPECT_TRUE(FD_ISSET(s, &rd));
	close(pfd[0]);
	close(pfd[1]);
}

/* rpoll() says @s is not readable (now). */
static inline void guest_rs_assert_unreadable(struct __test_metadata *_metadata,
					      int s)
{
	struct pollfd p = { .fd = s, .events = POLLIN };

	EXPECT_EQ(0, rpoll(&p, 1, 0));
}

#endif /* _RCM_GUEST_RS_H */
