/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib tests: a stand-in for libibverbs.
 *
 * A test program that links fake_verbs.o defines ibv_get_device_list(),
 * ibv_get_device_guid(), ibv_get_device_index() (fake_devices[i] has
 * index i), ibv_free_device_list(), ibv_open_device(), ibv_close_device() and
 * ibv_query_device() itself. The executable comes first in the symbol
 * lookup order, so the library under test calls these instead of
 * libibverbs' and the tests run the same on hosts with and without RDMA
 * hardware. The counters prove that the interposition took place.
 *
 * The objects the library makes for an id are faked too: PDs, completion
 * channels, CQs, QPs and SRQs (ibv_alloc_pd() ... ibv_destroy_srq()),
 * each counted while it lives. The contexts are extended ones, so that
 * the inline ibv_create_qp_ex() and ibv_create_srq_ex() reach the fake's
 * create_qp_ex and create_srq_ex for masks beyond the PD. A QP records
 * every ibv_modify_qp() (attributes, mask, and fake_seq, a counter that
 * seam.c shares, so that tests can check the order of QP changes
 * and module commands) and keeps the state it was moved to, and the
 * multicast groups ibv_attach_mcast() attached it to (ibv_detach_mcast()
 * of a group not attached fails with EINVAL). Like rxe, the devices have
 * no XRC domains and no ECE (EOPNOTSUPP).
 */
#ifndef RCM_TEST_FAKE_VERBS_H
#define RCM_TEST_FAKE_VERBS_H

#include <endian.h>
#include <stdbool.h>
#include <infiniband/verbs.h>

#define FAKE_MAX_DEVICES 4

/* Node GUID of fake_devices[i], network order (ibv_get_device_guid()). */
#define FAKE_GUID(i)	htobe64(0x0002c90300a0b000ULL + (i))

extern int fake_num_devices;		/* what the next listing reports */
extern int fake_open_fail_index;	/* device whose open fails, or -1 */
/* Every device reports FAKE_GUID(0), as devices sharing a node GUID. */
extern bool fake_same_guid;
extern struct ibv_device fake_devices[FAKE_MAX_DEVICES];

extern int fake_list_calls;
extern int fake_open_calls;
extern int fake_close_calls;
extern int fake_query_calls;

/* Incremented by every ibv_modify_qp() and every command of the seam. */
extern int fake_seq;

/* Objects alive now, and what the next creation does. */
extern int fake_live_pds;
extern int fake_live_channels;
extern int fake_live_cqs;
extern int fake_live_qps;
extern int fake_live_srqs;
extern int fake_create_qp_errno;	/* one-shot failure of the next QP */

#define FAKE_MAX_MODS	8

struct fake_qp_mod {
	struct ibv_qp_attr	attr;
	int			mask;
	int			seq;		/* fake_seq when it happened */
};

#define FAKE_MAX_MCAST	4

/*
 * A fake QP: the library sees qp. init is what it was created with
 * (comp_mask IBV_QP_INIT_ATTR_PD for ibv_create_qp()); qp.state follows
 * the successful ibv_modify_qp() calls, all of which are in mods.
 */
struct fake_qp {
	struct ibv_qp		qp;
	struct ibv_qp_init_attr_ex init;
	int			nmods;
	struct fake_qp_mod	mods[FAKE_MAX_MODS];
	/* ibv_attach_mcast(): the groups attached now, and the calls */
	int			nmcast;
	struct {
		union ibv_gid	gid;
		uint16_t	lid;
	}			mcast[FAKE_MAX_MCAST];
	int			attach_calls;
	int			detach_calls;
};

static inline struct fake_qp *fake_qp(struct ibv_qp *qp)
{
	return (struct fake_qp *)qp;
}

/* One-shot errno of the next ibv_attach_mcast() (0: none). */
extern int fake_attach_errno;

/* Fail the next ibv_modify_qp() into state with err (0: none). */
void fake_fail_modify(enum ibv_qp_state state, int err);

#endif /* RCM_TEST_FAKE_VERBS_H */
