/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib tests: the syscall seam between the library and rcm.
 *
 * A test program that links seam.o defines ioctl() and read(), and
 * __read_chk(), which a library built with _FORTIFY_SOURCE calls for
 * read(); the executable comes first in the symbol lookup order, so the
 * library under test calls these. Channels open /dev/null (RCM_DEVICE, set by
 * script_cm()); the first RCM_IOCTL_QUERY on a file makes it a seam
 * file. Other files get the real system calls.
 *
 * The seam simulates no module. It keeps what the uapi makes the
 * library count on: handles (the lowest free one from 1, per file),
 * each id's context and the events read() returned of it
 * (out_events_reported of RCM_IOCTL_DESTROY_ID and RCM_IOCTL_MIGRATE_ID,
 * which also moves the id's unread records), and the records queued
 * per file, returned by read() whole, blocking or EAGAIN on an
 * O_NONBLOCK file. Every other command succeeds and changes nothing
 * unless the test scripts its reply in seam_reply[] (script.h has the
 * replies the programs share). Everything that needs the real module's
 * behaviour runs against rcm.ko in a guest (userlib/test/guest/).
 */
#ifndef RCM_TEST_SEAM_H
#define RCM_TEST_SEAM_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/rcm_user.h>

#define SEAM_NR_CMDS	(RCM_CMD_LEAVE_MCAST - RCM_CMD_BASE + 1)
#define SEAM_CMD(cmd)	((cmd) - RCM_CMD_BASE)

/*
 * The reply to a command (index: SEAM_CMD(RCM_CMD_*)) on the seam file
 * fd: 0 (the outputs it wrote go back) or an errno value. Called without
 * the seam's lock, so it may queue records; for CREATE_ID, DESTROY_ID
 * and MIGRATE_ID after the seam's own work succeeded.
 */
typedef int (*seam_fn)(int fd, void *arg);
extern seam_fn seam_reply[SEAM_NR_CMDS];

/* One-shot errno for the next call of cmd (RCM_CMD_*). */
extern int seam_fail[SEAM_NR_CMDS];
#define seam_fail_next(cmd, err)	(seam_fail[SEAM_CMD(cmd)] = (err))

/* Calls of each command (failed ones too), and fake_seq after the last. */
extern int seam_calls[SEAM_NR_CMDS];
extern int seam_seq[SEAM_NR_CMDS];
#define SEAM_CALLS(cmd)	seam_calls[SEAM_CMD(cmd)]
#define SEAM_SEQ(cmd)	seam_seq[SEAM_CMD(cmd)]

/* The argument of the last call of cmd, as the reply left it. */
extern uint64_t seam_last_arg[SEAM_NR_CMDS][128];
static inline const void *seam_last(unsigned int cmd)
{
	return seam_last_arg[SEAM_CMD(cmd)];
}
#define SEAM_LAST(type, cmd)	((const struct type *)seam_last(cmd))
/* The handle the last RCM_IOCTL_CREATE_ID gave. */
#define SEAM_LAST_HANDLE()	\
	SEAM_LAST(rcm_create_id, RCM_CMD_CREATE_ID)->out_id

/* A new id in the file of fd, as the module makes one for a request. */
uint32_t seam_new_id(int fd, uint64_t context);
/* Whether handle is a live id of the file of fd. */
bool seam_live(int fd, uint32_t handle);

/* A record of handle's of fd: its context, event and status. */
struct rcm_event seam_event(int fd, uint32_t handle, uint32_t event,
			    int32_t status);
/* Queue a record in the file of fd; false if fd is no seam file. */
bool seam_push(int fd, const struct rcm_event *ev);
/* Discard the unread records of handle with context, as a leave does. */
void seam_discard(int fd, uint32_t handle, uint64_t context);
/* Records queued (unread) in the file of fd. */
int seam_queued(int fd);
/*
 * Called for every record read() returns, once the records are taken
 * out of the file and before read() returns (without the seam's lock:
 * it may block, see script_hold_next_read()).
 */
extern void (*seam_on_read)(int fd, const struct rcm_event *ev);

#endif /* RCM_TEST_SEAM_H */
