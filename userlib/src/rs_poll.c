// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: rpoll() and rselect(), over rsockets and ordinary
 * descriptors mixed.
 *
 * An rsocket's readiness is its protocol state, not an fd's: rpoll()
 * checks each rsocket (processing its completions and CM events, and
 * driving a non-blocking connect), and when none is ready sleeps in
 * poll(2) on what can change that: a connected rsocket's completion
 * channel and CM channel, a listening or connecting one's CM channel,
 * with the ordinary descriptors as given; a datagram rsocket's are its
 * completion channels' epoll fd and its UDP socket (rs_dgram.c's
 * ds_poll()). A sleep lasts at most
 * wake_up_interval (5 s; /etc/rdma/rsocket/wake_up_interval), after
 * which every rsocket is checked again: another thread may have taken
 * the event this one slept on.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

#include <rdma/rsocket.h>

#include "rcm_lib.h"
#include "rs_priv.h"

static bool rs_cq_is_armed(struct rsock *rs)
{
	return rs->cq_armed;
}

/*
 * The events of @rs that are ready, of @events plus POLLHUP/POLLERR.
 * With @wait non-NULL, also arms the CQ and fills @wait[0..1] with
 * the fds to sleep on.
 */
static short rs_poll_rs(struct rsock *rs, short events, struct pollfd *wait)
{
	short revents = 0;

	if (rs->type == SOCK_DGRAM)
		return ds_poll(rs, events, wait);
	if (wait) {
		wait[0].fd = wait[1].fd = -1;
		wait[0].events = wait[1].events = POLLIN;
		wait[0].revents = wait[1].revents = 0;
	}
	if (rs->state & RS_OPENING) {
		if (rs_do_connect(rs) && errno == EINPROGRESS) {
			if (wait)
				wait[0].fd = rs->cm_id->channel->fd;
			return 0;
		}
	}
	if (rs->state & (RS_CONNECTED | RS_DISCONNECTED | RS_ERROR)) {
		rs_process(rs, true, rs_any);
		if ((events & POLLIN) && rs_conn_have_rdata(rs))
			revents |= POLLIN;
		if ((events & POLLOUT) && rs_can_send(rs))
			revents |= POLLOUT;
		/*
		 * Unlike librdmacm 44: to a reader (POLLIN), the peer's end is
		 * POLLHUP only once what it sent before has been read, so
		 * that a reader that stops at POLLHUP loses no data.
		 */
		if (rs->state & RS_ERROR)
			revents |= POLLERR;
		else if ((rs->state & RS_DISCONNECTED) &&
			 !((events & POLLIN) && rs_have_rdata(rs)))
			revents |= POLLHUP;
		if (!revents && wait) {
			/* Arm, and poll once more for what came meanwhile. */
			rs_process(rs, false, rs_cq_is_armed);
			if ((events & POLLIN) && rs_conn_have_rdata(rs))
				revents |= POLLIN;
			if ((events & POLLOUT) && rs_can_send(rs))
				revents |= POLLOUT;
			wait[0].fd = rs->cm_id->recv_cq_channel->fd;
			wait[1].fd = rs->cm_id->channel->fd;
		}
		return revents;
	}
	if (rs->state == RS_LISTENING) {
		struct pollfd p = { .fd = rs->cm_id->channel->fd, .events = POLLIN };

		if (poll(&p, 1, 0) > 0 && (p.revents & POLLIN))
			revents = events & POLLIN;
		if (!revents && wait)
			wait[0].fd = rs->cm_id->channel->fd;
		return revents;
	}
	if (rs->state == RS_CONNECT_ERROR)
		return (events & (POLLIN | POLLOUT)) | POLLERR;
	return 0;
}

static uint64_t rs_now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000ULL + t.tv_nsec / 1000;
}

static uint64_t rs_now_ms(void)
{
	return rs_now_us() / 1000;
}

/* Check every entry without sleeping; @wait as rs_poll_rs()'s. */
static int rs_poll_check(struct pollfd *fds, nfds_t nfds, struct pollfd *wait)
{
	struct rsock *rs;
	nfds_t i;
	int cnt = 0;

	for (i = 0; i < nfds; i++) {
		rs = rs_lookup(fds[i].fd);
		if (rs) {
			fds[i].revents = rs_poll_rs(rs, fds[i].events,
						    wait ? &wait[2 * i] : NULL);
		} else if (wait) {
			fds[i].revents = 0;
			wait[2 * i] = fds[i];
			wait[2 * i].revents = 0;
			wait[2 * i + 1].fd = -1;
			wait[2 * i + 1].revents = 0;
		} else {
			fds[i].revents = 0;
			if (fds[i].fd >= 0)
				poll(&fds[i], 1, 0);
		}
		if (fds[i].revents)
			cnt++;
	}
	return cnt;
}

/* After a sleep: take the events the rsockets' fds reported. */
static int rs_poll_events(struct pollfd *fds, nfds_t nfds, struct pollfd *wait)
{
	struct rsock *rs;
	nfds_t i;
	int cnt = 0;

	for (i = 0; i < nfds; i++) {
		rs = rs_lookup(fds[i].fd);
		if (!rs) {
			fds[i].revents = wait[2 * i].revents;
			if (fds[i].revents)
				cnt++;
			continue;
		}
		if (rs->type == SOCK_DGRAM) {
			ds_poll_wake(rs, &wait[2 * i]);
		} else if ((rs->state & RS_CONNECTED) ||
			   (rs->state & RS_DISCONNECTED) ||
			   (rs->state & RS_ERROR)) {
			pthread_mutex_lock(&rs->cq_lock);
			if (wait[2 * i].revents)
				rs_cq_event(rs);
			if (wait[2 * i + 1].revents)
				rs_cm_event(rs);
			pthread_mutex_unlock(&rs->cq_lock);
		}
		fds[i].revents = rs_poll_rs(rs, fds[i].events, NULL);
		if (fds[i].revents)
			cnt++;
	}
	return cnt;
}

RCM_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	uint64_t start = rs_now_ms(), spin_end = rs_now_us() + rs_polling_time;
	struct pollfd *wait;
	int ret, sleep;

	/* Busy-poll for polling_time microseconds first. */
	do {
		ret = rs_poll_check(fds, nfds, NULL);
		if (ret || !timeout)
			return ret;
	} while (rs_now_us() < spin_end);

	wait = calloc(nfds ? 2 * nfds : 1, sizeof(*wait));
	if (!wait)
		return rcm_err(ENOMEM);
	for (;;) {
		ret = rs_poll_check(fds, nfds, wait);
		if (ret)
			break;
		sleep = rs_wake_up_interval;
		if (timeout >= 0) {
			int left = timeout - (int)(rs_now_ms() - start);

			if (left <= 0)
				break;
			if (left < sleep)
				sleep = left;
		}
		ret = poll(wait, 2 * nfds, sleep);
		if (ret < 0)
			break;
		ret = rs_poll_events(fds, nfds, wait);
		if (ret)
			break;
	}
	free(wait);
	return ret;
}

RCM_EXPORT int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
		       struct timeval *timeout)
{
	struct pollfd *fds;
	int fd, n = 0, i, ret, cnt = 0, to;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return rcm_err(EINVAL);
	fds = calloc(nfds ? nfds : 1, sizeof(*fds));
	if (!fds)
		return rcm_err(ENOMEM);
	for (fd = 0; fd < nfds; fd++) {
		short ev = 0;
		bool any = false;

		if (readfds && FD_ISSET(fd, readfds)) {
			ev |= POLLIN;
			any = true;
		}
		if (writefds && FD_ISSET(fd, writefds)) {
			ev |= POLLOUT;
			any = true;
		}
		if (exceptfds && FD_ISSET(fd, exceptfds))
			any = true;
		if (any) {
			fds[n].fd = fd;
			fds[n].events = ev;
			n++;
		}
	}

	to = timeout ? (int)(timeout->tv_sec * 1000 + timeout->tv_usec / 1000) : -1;
	ret = rpoll(fds, n, to);
	if (readfds)
		FD_ZERO(readfds);
	if (writefds)
		FD_ZERO(writefds);
	if (exceptfds)
		FD_ZERO(exceptfds);
	if (ret > 0) {
		for (i = 0; i < n; i++) {
			short r = fds[i].revents;

			if (readfds && (r & (POLLIN | POLLHUP)) &&
			    (fds[i].events & POLLIN)) {
				FD_SET(fds[i].fd, readfds);
				cnt++;
			}
			if (writefds && (r & POLLOUT)) {
				FD_SET(fds[i].fd, writefds);
				cnt++;
			}
			if (exceptfds && (r & ~(POLLIN | POLLOUT))) {
				FD_SET(fds[i].fd, exceptfds);
				cnt++;
			}
		}
		ret = cnt;
	}
	free(fds);
	return ret;
}
