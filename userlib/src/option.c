// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: rdma_set_option().
 *
 * librdmacm hands the option's bytes to the kernel, and the in-tree ucma
 * checks their length; rcm's RCM_IOCTL_SET_OPTION takes one scalar, so
 * the library does ucma's part: it checks the length of each option it
 * knows and reads the value the way ucma does.
 */
#include <string.h>
#include <sys/ioctl.h>

#include "rcm_lib.h"

/*
 * The scalar for an option at RDMA_OPTION_ID, read from @optval as ucma
 * reads it: uint8_t options one byte, int options any non-zero int as 1.
 *
 * Return: 0, EINVAL when @optlen is not the size of the option, or
 * ENOSYS for a name librdmacm does not know - ucma's errno, also for the
 * numbers of rcm's own options (RCM_OPTION_ID_RESOLVE_TIMEOUT, ...),
 * which are not librdmacm's and never reach the module from here.
 */
static int rcm_option_id_value(int optname, const void *optval,
			       size_t optlen, __u64 *value)
{
	uint8_t u8;
	int i;

	switch (optname) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(u8))
			return EINVAL;
		memcpy(&u8, optval, sizeof(u8));
		*value = u8;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(i))
			return EINVAL;
		/* The caller's int need not be aligned. */
		memcpy(&i, optval, sizeof(i));
		*value = i ? 1 : 0;
		return 0;
	default:
		return ENOSYS;
	}
}

/**
 * rdma_set_option() - set an option of a communication identifier
 * @id: the id
 * @level: RDMA_OPTION_ID, or RDMA_OPTION_IB
 * @optname: the option at @level
 * @optval: the value: uint8_t for RDMA_OPTION_ID_TOS and
 *          RDMA_OPTION_ID_ACK_TIMEOUT, int for RDMA_OPTION_ID_REUSEADDR
 *          and RDMA_OPTION_ID_AFONLY
 * @optlen: the size of *@optval
 *
 * The checks come in ucma's order: a NULL @optval with a non-zero
 * @optlen faults (EFAULT) before anything else is looked at, then a
 * known option's @optlen must be its size (EINVAL). An unknown name at
 * RDMA_OPTION_ID is ENOSYS here; unknown levels, and names at
 * RDMA_OPTION_IB, reach the kernel, whose ENOPROTOOPT becomes ucma's
 * ENOSYS: applications test for what librdmacm on the in-tree CM
 * returns.
 * RDMA_OPTION_IB_PATH sets the route of an id whose address is resolved
 * from path records (struct ibv_path_data, what ibacm and
 * rdma_getaddrinfo() give as ai_route): the kernel reads them at @optval
 * and queues ROUTE_RESOLVED, which the caller reaps as with
 * rdma_resolve_route() - also in synchronous mode, as librdmacm's
 * callers do (rdma_create_ep()).
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id, wrong @optlen; for
 * RDMA_OPTION_IB_PATH no route's record among @optval's, or the id's
 * state), EFAULT, ENOSYS (unknown name), or the errors of
 * RCM_IOCTL_SET_OPTION (ENOSYS for its ENOPROTOOPT, EINVAL for a value
 * out of range or a state or QP type the option does not allow, ENXIO
 * after the id's device was removed).
 */
RCM_EXPORT int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
			       void *optval, size_t optlen)
{
	struct rcm_set_option cmd = { .size = sizeof(cmd) };
	struct rcm_id_private *rid;
	int err;

	if (!id)
		return rcm_err(EINVAL);
	if (!optval && optlen)
		return rcm_err(EFAULT);
	if (level == RDMA_OPTION_ID) {
		err = rcm_option_id_value(optname, optval, optlen, &cmd.value);
		if (err)
			return rcm_err(err);
	} else if (level == RDMA_OPTION_IB && optname == RDMA_OPTION_IB_PATH) {
		if (optlen > UINT32_MAX)
			return rcm_err(EINVAL);
		cmd.value = (uintptr_t)optval;
		cmd.optlen = (uint32_t)optlen;
	}
	rid = rcm_id(id);

	cmd.id = rid->handle;
	/* Negative values become huge ones, which the kernel does not know. */
	cmd.level = (uint32_t)level;
	cmd.optname = (uint32_t)optname;
	if (ioctl(rid->chan->ch.fd, RCM_IOCTL_SET_OPTION, &cmd))
		return errno == ENOPROTOOPT ? rcm_err(ENOSYS) : -1;
	/*
	 * The ACK timeout changes RTS, the TOS a later route's path: kept
	 * QP attributes may be stale, whatever the option.
	 */
	rcm_qp_attr_forget(rid);
	return 0;
}
