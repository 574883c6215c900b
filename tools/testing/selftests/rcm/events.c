// SPDX-License-Identifier: GPL-2.0-only
/*
 * events: read() and poll() on the event queue follow the documented
 * rules when nothing is queued. (Event delivery itself is covered by the
 * tests of the operations that produce events.)
 */
#include <stddef.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"

RCM_TEST(short_buffer_is_einval)
{
	char buf[sizeof(struct rcm_event) - 1];
	int fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK_ERRNO(read(fd, buf, sizeof(buf)), EINVAL);
	CHECK_ERRNO(read(fd, buf, 0), EINVAL);
	close(fd);
}

RCM_TEST(nonblocking_read_of_empty_queue_is_eagain)
{
	struct rcm_event ev[4];
	int fd = open(RCM_DEV, O_RDWR | O_NONBLOCK);

	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK_ERRNO(read(fd, ev, sizeof(ev)), EAGAIN);
	close(fd);
}

RCM_TEST(poll_and_epoll_see_no_event)
{
	struct pollfd p = { .events = POLLIN };
	struct epoll_event e = { .events = EPOLLIN }, got;
	int ep, fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	p.fd = fd;
	CHECK(poll(&p, 1, 50) == 0, "poll reported %#x", p.revents);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0, "epoll_create1");
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) == 0, "epoll_ctl: %s",
	      strerror(errno));
	CHECK(epoll_wait(ep, &got, 1, 50) == 0, "epoll reported an event");
	close(ep);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

RCM_TEST(blocking_read_is_interruptible)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value.tv_usec = 200000 };
	struct rcm_event ev;
	int fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer");
	CHECK_ERRNO(read(fd, &ev, sizeof(ev)), EINTR);
	close(fd);
}

RCM_TEST(event_record_layout_is_fixed)
{
	/* Userspace and kernel agree on one record size for every arch. */
	CHECK(sizeof(struct rcm_event) == 272, "sizeof %zu",
	      sizeof(struct rcm_event));
	CHECK(offsetof(struct rcm_event, private_data) == 72, "offset %zu",
	      offsetof(struct rcm_event, private_data));
	CHECK(offsetof(struct rcm_event, ud.ah_attr) ==
	      offsetof(struct rcm_event, conn) + 8, "ud offset");
	CHECK(sizeof(struct rcm_event) % 8 == 0, "not 8-byte sized");
}

int main(void)
{
	return rcm_test_run();
}
