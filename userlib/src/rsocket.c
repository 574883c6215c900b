// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rsockets, as far as rcm goes today.
 *
 * librdmacm exports its socket-like API (rsocket(7)) in RDMACM_1.0, and
 * its own programs import some of it - rping and cmtime call rpoll() - so
 * the symbols must exist for those programs to load at all. rcm has no
 * rsocket protocol engine yet, which makes every descriptor an ordinary
 * one: rpoll() and rselect() are poll() and select() on them, rclose()
 * answers what librdmacm answers for a descriptor that is not an rsocket
 * (the positive value EBADF, errno untouched), and every other call,
 * which would need an rsocket, fails with ENOSYS. The README's feature
 * table says so.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <rdma/rsocket.h>

#include "rcm_lib.h"

static int rs_none(void)
{
	errno = ENOSYS;
	return -1;
}

RCM_EXPORT int rsocket(int domain, int type, int protocol)
{
	(void)domain, (void)type, (void)protocol;
	return rs_none();
}

RCM_EXPORT int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return rs_none();
}

RCM_EXPORT int rlisten(int socket, int backlog)
{
	(void)socket, (void)backlog;
	return rs_none();
}

RCM_EXPORT int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return rs_none();
}

RCM_EXPORT int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return rs_none();
}

RCM_EXPORT int rshutdown(int socket, int how)
{
	(void)socket, (void)how;
	return rs_none();
}

RCM_EXPORT int rclose(int socket)
{
	(void)socket;
	return EBADF;
}

RCM_EXPORT ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	(void)socket, (void)buf, (void)len, (void)flags;
	return rs_none();
}

RCM_EXPORT ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags,
		  struct sockaddr *src_addr, socklen_t *addrlen)
{
	(void)socket, (void)buf, (void)len, (void)flags, (void)src_addr;
	(void)addrlen;
	return rs_none();
}

RCM_EXPORT ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	(void)socket, (void)msg, (void)flags;
	return rs_none();
}

RCM_EXPORT ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	(void)socket, (void)buf, (void)len, (void)flags;
	return rs_none();
}

RCM_EXPORT ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
		const struct sockaddr *dest_addr, socklen_t addrlen)
{
	(void)socket, (void)buf, (void)len, (void)flags, (void)dest_addr;
	(void)addrlen;
	return rs_none();
}

RCM_EXPORT ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	(void)socket, (void)msg, (void)flags;
	return rs_none();
}

RCM_EXPORT ssize_t rread(int socket, void *buf, size_t count)
{
	(void)socket, (void)buf, (void)count;
	return rs_none();
}

RCM_EXPORT ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket, (void)iov, (void)iovcnt;
	return rs_none();
}

RCM_EXPORT ssize_t rwrite(int socket, const void *buf, size_t count)
{
	(void)socket, (void)buf, (void)count;
	return rs_none();
}

RCM_EXPORT ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket, (void)iov, (void)iovcnt;
	return rs_none();
}

RCM_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return poll(fds, nfds, timeout);
}

RCM_EXPORT int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
	    struct timeval *timeout)
{
	return select(nfds, readfds, writefds, exceptfds, timeout);
}

RCM_EXPORT int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return rs_none();
}

RCM_EXPORT int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket, (void)addr, (void)addrlen;
	return rs_none();
}

RCM_EXPORT int rsetsockopt(int socket, int level, int optname, const void *optval,
		socklen_t optlen)
{
	(void)socket, (void)level, (void)optname, (void)optval, (void)optlen;
	return rs_none();
}

RCM_EXPORT int rgetsockopt(int socket, int level, int optname, void *optval,
		socklen_t *optlen)
{
	(void)socket, (void)level, (void)optname, (void)optval, (void)optlen;
	return rs_none();
}

RCM_EXPORT int rfcntl(int socket, int cmd, ...)
{
	(void)socket, (void)cmd;
	return rs_none();
}

RCM_EXPORT off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
	     off_t offset)
{
	(void)socket, (void)buf, (void)len, (void)prot, (void)flags;
	(void)offset;
	return rs_none();
}

RCM_EXPORT int riounmap(int socket, void *buf, size_t len)
{
	(void)socket, (void)buf, (void)len;
	return rs_none();
}

RCM_EXPORT size_t riowrite(int socket, const void *buf, size_t count, off_t offset,
		int flags)
{
	(void)socket, (void)buf, (void)count, (void)offset, (void)flags;
	rs_none();
	/* librdmacm's riowrite returns size_t: -1 converted, as it does. */
	return (size_t)-1;
}
