/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the uapi header promises, in a form the fuzzer and the fault
 * injection test check calls and events against: the errno values each
 * command documents, the rules every event record obeys, and the
 * /proc/thread-self/fail-nth protocol.
 */
#ifndef RCM_FUZZ_COMMON_H
#define RCM_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <rdma/rcm_user.h>

#define RCM_NCMDS (RCM_CMD_LEAVE_MCAST - RCM_CMD_BASE + 1)

/* The command's name, from its number (RCM_CMD_*). */
const char *rcm_cmd_name(unsigned int nr);
/* The ioctl number of command RCM_CMD_BASE + @i. */
unsigned long rcm_cmd_ioctl(unsigned int i);
/* sizeof() of command @nr's struct as this header defines it. */
size_t rcm_cmd_size(unsigned int nr);
/*
 * Whether @err is an errno the header documents for command @nr: the
 * table of errors common to every command, or one of the command's own.
 */
bool rcm_errno_documented(unsigned int nr, int err);

/*
 * Check one event record against the header's rules that hold whatever
 * the id did: a known type, listen_id only on CONNECT_REQUEST, a status
 * of the right sign, private_data_len within bounds, reserved zero.
 * Returns NULL, or what is wrong with it.
 */
const char *rcm_event_malformed(const struct rcm_event *ev);

/*
 * Fault injection through /proc/thread-self/fail-nth (the calling
 * thread only). rcm_fault_open() opens the thread's file once (opening
 * it allocates, so it is never opened between arming and the call) and
 * returns its descriptor, or -1 where the kernel has no fault injection.
 * rcm_fault_setup() makes failslab and fail_page_alloc fail sleeping
 * allocations too and silences their reports (a stack dump per injected
 * failure would read as a kernel splat); 0 or -1.
 */
int rcm_fault_open(void);
int rcm_fault_setup(void);
/* Fail the @nth fault-injection point this thread reaches from now on. */
int rcm_fault_arm(int ffd, unsigned int nth);
/*
 * Disarm; true if the armed failure was injected (the counter ran down
 * to zero) since rcm_fault_arm().
 */
bool rcm_fault_fired(int ffd);

#endif /* RCM_FUZZ_COMMON_H */
