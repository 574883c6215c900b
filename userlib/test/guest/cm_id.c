// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_id: rdma_create_id(), rdma_destroy_id(), rdma_bind_addr() and
 * rdma_resolve_addr() keep the id's fields as librdmacm 44 on the
 * in-tree CM does, against the real module, in a guest with a Soft-RoCE
 * device. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. create_per_port_space: ids of RDMA_PS_TCP, UDP, IPOIB and IB on a
 *    channel: the id shows the channel, the context, the port space and
 *    the QP type librdmacm derives from it (UDP, IPOIB: UD; TCP, IB: RC),
 *    no device and no event; each destroy returns 0.
 * 2. create_errors: an unknown port space (0x4242) on a synchronous id
 *    is the kernel's EINVAL, and the private channel opened for it is
 *    closed again (no file descriptor left); *id untouched.
 * 3. sync_private_channel: a synchronous id's channel is a new file
 *    descriptor (the lowest free one), and rdma_destroy_id() closes it.
 * 4. bind_addr: an AF_UNIX address and a NULL one are EINVAL; the IPv4
 *    wildcard with port 0 gives the id the kernel's port, no device, port
 *    0; RCM_ADDR_RXE with a free port attaches the id to the device (verbs,
 *    port 1, source GID ::ffff:RCM_ADDR_RXE, P_Key 0), destination port
 *    0; a second bind is EINVAL.
 * 5. resolve: a NULL destination is EINVAL; the destination is in the
 *    id as soon as the call returns, before its ADDR_RESOLVED; a given
 *    source address is used; resolving again is EINVAL; both ids get
 *    ADDR_RESOLVED (status 0) on their channel.
 * 6. timeout_range: rdma_resolve_addr() with timeout 0 to the id's own
 *    device address resolves (the neighbour is the host itself); with
 *    -1 rcm says EINVAL (0..600000 ms, rdma_resolve_addr(3)), where
 *    rdma_ucm takes it as a huge timeout and resolves.
 * 7. hotplug.device_added_and_removed: a Soft-RoCE device added after
 *    the library listed the devices (on a dummy netdev of the case's
 *    own, hp0, 198.18.253.1/24) is found when an id binds to its
 *    address (id->verbs, id->pd), and rdma_get_devices() lists it; once
 *    removed (DEVICE_REMOVAL on the id) it is no longer listed, while
 *    the id keeps its context, and a command on the id fails with
 *    ENXIO (ucma's: the kernel closed its id); the id destroyed, the
 *    library closes the
 *    context, and the removal (which Soft-RoCE holds until then)
 *    completes within 20 s. The teardown removes both whatever
 *    happened.
 * 8. hotplug.device_recreated_at_the_same_address: after a removal
 *    that the process lets go (DEVICE_REMOVAL, the devices listed
 *    again - which is when librdmacm learns that a device is gone -
 *    the id destroyed), the same device added again on the same netdev
 *    is found by the next bind to its address (listed once, with a
 *    context and a PD), resolves an address, and goes again the same
 *    way.
 * 9. hotplug.removal_needs_no_second_listing: the process destroys its
 *    id after DEVICE_REMOVAL and does not list the devices again. With
 *    librdmacm 44 the removal still waits for it (librdmacm keeps the
 *    context until its list no longer has the device), and completes
 *    once it lists them; rcm's library closes the context with the
 *    device's last id (deliberate: rdma link delete does not hang on a
 *    process that once used the device).
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"
#include "common/guest_ksft.h"

/* The hotplug case's own netdev and Soft-RoCE device. */
#define HP_NETDEV	"hp0"
#define HP_DEV		"hprxe0"
#define HP_ADDR		"198.18.253.1"
/* iproute2's: busybox's ip knows no "type dummy". */
#define IP		"/usr/sbin/ip"

/* The lowest free file descriptor: a leak shows as a change. */
static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

TEST(create_per_port_space)
{
	static const struct {
		enum rdma_port_space ps;
		enum ibv_qp_type qpt;
	} cases[] = {
		{ RDMA_PS_TCP, IBV_QPT_RC },
		{ RDMA_PS_UDP, IBV_QPT_UD },
		{ RDMA_PS_IPOIB, IBV_QPT_UD },
		{ RDMA_PS_IB, IBV_QPT_RC },
	};
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	unsigned int i;
	int ctx;

	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		id = NULL;
		ASSERT_EQ(0, rdma_create_id(ch, &id, &ctx, cases[i].ps))
			TH_LOG("port space %#x: %s", cases[i].ps,
			       strerror(errno));
		EXPECT_EQ(ch, id->channel);
		EXPECT_EQ(&ctx, id->context);
		EXPECT_EQ(cases[i].ps, id->ps);
		EXPECT_EQ(cases[i].qpt, id->qp_type);
		EXPECT_EQ(NULL, id->verbs);
		EXPECT_EQ(NULL, id->event);
		ASSERT_EQ(0, rdma_destroy_id(id));
	}
	rdma_destroy_event_channel(ch);
}

TEST(create_errors)
{
	struct rdma_cm_id *id = (struct rdma_cm_id *)&id;
	int fd = lowest_free_fd();

	ASSERT_ERRNO(rdma_create_id(NULL, &id, NULL, 0x4242), EINVAL);
	EXPECT_EQ((struct rdma_cm_id *)&id, id);
	EXPECT_EQ(fd, lowest_free_fd());
}

TEST(sync_private_channel)
{
	struct rdma_cm_id *id = NULL;
	int fd = lowest_free_fd();

	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
	ASSERT_NE(NULL, id->channel);
	EXPECT_EQ(fd, id->channel->fd);
	ASSERT_EQ(0, rdma_destroy_id(id));
	EXPECT_EQ(fd, lowest_free_fd());
}

TEST(bind_addr)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_in any, spec, *src;
	struct rdma_cm_id *a = NULL, *b = NULL;
	struct in6_addr gid;
	char want[INET6_ADDRSTRLEN], got[INET6_ADDRSTRLEN];

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_parse_ipv4("0.0.0.0", 0, &any));
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_UDP, &spec));
	ASSERT_EQ(0, rdma_create_id(NULL, &a, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(NULL, &b, NULL, RDMA_PS_UDP));

	ASSERT_ERRNO(rdma_bind_addr(a, (struct sockaddr *)&un), EINVAL);
	ASSERT_ERRNO(rdma_bind_addr(a, NULL), EINVAL);

	EXPECT_EQ(0, rdma_get_src_port(a));
	ASSERT_EQ(0, rdma_bind_addr(a, (struct sockaddr *)&any))
		TH_LOG("wildcard: %s", strerror(errno));
	EXPECT_NE(0, rdma_get_src_port(a));
	EXPECT_EQ(AF_INET, rdma_get_local_addr(a)->sa_family);
	EXPECT_EQ(NULL, a->verbs);
	EXPECT_EQ(0, a->port_num);

	ASSERT_EQ(0, rdma_bind_addr(b, (struct sockaddr *)&spec))
		TH_LOG("%s: %s", rxe, strerror(errno));
	src = (struct sockaddr_in *)rdma_get_local_addr(b);
	EXPECT_EQ(spec.sin_addr.s_addr, src->sin_addr.s_addr);
	EXPECT_EQ(spec.sin_port, rdma_get_src_port(b));
	EXPECT_EQ(0, rdma_get_dst_port(b));
	ASSERT_NE(NULL, b->verbs);
	EXPECT_EQ(1, b->port_num);
	memset(&gid, 0, sizeof(gid));
	gid.s6_addr[10] = 0xff;
	gid.s6_addr[11] = 0xff;
	memcpy(&gid.s6_addr[12], &spec.sin_addr, 4);
	inet_ntop(AF_INET6, &gid, want, sizeof(want));
	inet_ntop(AF_INET6, b->route.addr.addr.ibaddr.sgid.raw, got,
		  sizeof(got));
	EXPECT_STREQ(want, got);
	EXPECT_EQ(0, b->route.addr.addr.ibaddr.pkey);

	ASSERT_ERRNO(rdma_bind_addr(b, (struct sockaddr *)&spec), EINVAL);
	ASSERT_EQ(0, rdma_destroy_id(a));
	ASSERT_EQ(0, rdma_destroy_id(b));
}

TEST(resolve)
{
	struct sockaddr_in dst, src;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *a = NULL, *b = NULL;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	ASSERT_TRUE(guest_parse_ipv4(rxe, 0, &src));
	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, rdma_create_id(ch, &a, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(ch, &b, NULL, RDMA_PS_TCP));

	ASSERT_ERRNO(rdma_resolve_addr(a, NULL, NULL, 1000), EINVAL);
	ASSERT_EQ(0, rdma_resolve_addr(a, NULL, (struct sockaddr *)&dst,
				       2000))
		TH_LOG("rdma_resolve_addr: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(rdma_get_peer_addr(a), &dst, sizeof(dst)));
	EXPECT_EQ(dst.sin_port, rdma_get_dst_port(a));
	EXPECT_EQ(NULL, a->event);

	ASSERT_EQ(0, rdma_resolve_addr(b, (struct sockaddr *)&src,
				       (struct sockaddr *)&dst, 2000))
		TH_LOG("with a source: %s", strerror(errno));
	ASSERT_ERRNO(rdma_resolve_addr(b, NULL, (struct sockaddr *)&dst,
				       2000), EINVAL);

	guest_assert_event(_metadata, ch, NULL, RDMA_CM_EVENT_ADDR_RESOLVED);
	guest_assert_event(_metadata, ch, NULL, RDMA_CM_EVENT_ADDR_RESOLVED);
	EXPECT_EQ(src.sin_addr.s_addr,
		  ((struct sockaddr_in *)rdma_get_local_addr(b))->sin_addr.s_addr);
	EXPECT_NE(NULL, a->verbs);
	EXPECT_NE(NULL, b->verbs);
	ASSERT_EQ(0, rdma_destroy_id(a));
	ASSERT_EQ(0, rdma_destroy_id(b));
	rdma_destroy_event_channel(ch);
}

TEST(timeout_range)
{
	struct rdma_cm_id *id = NULL;
	struct sockaddr_in dst;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 0))
		TH_LOG("timeout 0: %s", strerror(errno));
	ASSERT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, id->event->event);
	ASSERT_EQ(0, rdma_destroy_id(id));

	/*
	 * rcm takes 0..600000 ms (rdma_resolve_addr(3)); rdma_ucm takes
	 * any value, a negative one as a huge timeout.
	 */
	id = NULL;
	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
	if (guest_on_rcm()) {
		ASSERT_ERRNO(rdma_resolve_addr(id, NULL,
					       (struct sockaddr *)&dst, -1),
			     EINVAL);
	} else {
		ASSERT_EQ(0, rdma_resolve_addr(id, NULL,
					       (struct sockaddr *)&dst, -1))
			TH_LOG("timeout -1: %s", strerror(errno));
	}
	ASSERT_EQ(0, rdma_destroy_id(id));
}

/* Runs @cmd through the shell, its output dropped: its exit status. */
static int sh(const char *cmd)
{
	char line[256];
	int st;

	snprintf(line, sizeof(line), "%s >/dev/null 2>&1", cmd);
	st = system(line);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * A netdev and a Soft-RoCE device of the case's own, added after the
 * library first listed the devices, removed again whatever happens.
 */
FIXTURE(hotplug) {
	int before;
};

FIXTURE_SETUP(hotplug)
{
	struct ibv_context **devs;

	if (!getenv("RCM_ADDR_RXE"))
		SKIP_SETUP("RCM_ADDR_RXE is not set");
	devs = rdma_get_devices(&self->before);
	ASSERT_NE(NULL, devs);
	rdma_free_devices(devs);
	ASSERT_EQ(0, sh(IP " link add " HP_NETDEV " type dummy"));
	ASSERT_EQ(0, sh(IP " addr add " HP_ADDR "/24 dev " HP_NETDEV));
	ASSERT_EQ(0, sh(IP " link set " HP_NETDEV " up"));
	ASSERT_EQ(0, sh("rdma link add " HP_DEV " type rxe netdev "
			HP_NETDEV))
		TH_LOG("rdma link add failed");
}

FIXTURE_TEARDOWN(hotplug)
{
	sh("timeout 10 rdma link delete " HP_DEV);
	sh("timeout 10 " IP " link delete " HP_NETDEV);
}

/* Seen by the library: the device named @name, or NULL. */
static struct ibv_context *listed(const char *name, int *n)
{
	struct ibv_context **devs, *found = NULL;
	int i;

	devs = rdma_get_devices(n);
	for (i = 0; devs && devs[i]; i++)
		if (!strcmp(devs[i]->device->name, name))
			found = devs[i];
	rdma_free_devices(devs);
	return found;
}

/* Starts @cmd in the background: a pidfd for its end, or -1. */
static int sh_background(const char *cmd, pid_t *pid)
{
	*pid = fork();
	if (*pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (*pid < 0)
		return -1;
	return syscall(SYS_pidfd_open, *pid, 0);
}

/*
 * Whether the background removal @pid (its pidfd in @p) ended within
 * @ms and succeeded; reaped then. The pidfd stays open.
 */
static bool removal_ended(struct pollfd *p, pid_t pid, int ms)
{
	int st = -1;

	return poll(p, 1, ms) == 1 && waitpid(pid, &st, 0) == pid &&
	       WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * Start removing HP_DEV in the background (Soft-RoCE's removal waits
 * until every user context of the device is closed) and take @id's
 * DEVICE_REMOVAL from @ch: whether both happened. @p gets the removal's
 * pidfd (or -1) for removal_ended(), @pid its process.
 */
static bool removal_reported(struct rdma_event_channel *ch,
			     struct rdma_cm_id *id, struct pollfd *p,
			     pid_t *pid)
{
	struct rdma_cm_event *ev;

	p->events = POLLIN;
	p->fd = sh_background("rdma link delete " HP_DEV " >/dev/null 2>&1",
			      pid);
	if (p->fd < 0)
		return false;
	ev = guest_next_event(ch, RDMA_CM_EVENT_DEVICE_REMOVAL, id);
	return ev && !rdma_ack_cm_event(ev);
}

TEST_F(hotplug, device_added_and_removed)
{
	struct pollfd p = { .events = POLLIN };
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	struct sockaddr_in sin;
	int n = 0;
	pid_t pid;

	ch = guest_channel();
	ASSERT_NE(NULL, ch);
	ASSERT_TRUE(guest_parse_ipv4(HP_ADDR, 0, &sin));
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&sin))
		TH_LOG("bind to the new device's address: %s", strerror(errno));
	ASSERT_NE(NULL, id->verbs);
	EXPECT_STREQ(HP_DEV, id->verbs->device->name);
	EXPECT_NE(NULL, id->pd);
	EXPECT_EQ(id->verbs, listed(HP_DEV, &n));
	EXPECT_EQ(self->before + 1, n);

	ASSERT_TRUE(removal_reported(ch, id, &p, &pid));
	EXPECT_EQ(NULL, listed(HP_DEV, &n));
	EXPECT_EQ(self->before, n);
	/* The id keeps the context it holds. */
	EXPECT_STREQ(HP_DEV, id->verbs->device->name);
	/*
	 * Its commands find no id any more: ENXIO. ucma (6.1, 6.12) drops
	 * the id from a work item it queues after the event, so a command
	 * that comes first still finds the id, removed: EINVAL there.
	 */
	ASSERT_EQ(-1, rdma_listen(id, 1));
	EXPECT_TRUE(errno == ENXIO || (!guest_on_rcm() && errno == EINVAL))
		TH_LOG("listen after DEVICE_REMOVAL: %s", strerror(errno));
	/* Its last id gone, the library closes the context. */
	ASSERT_EQ(0, rdma_destroy_id(id));
	ASSERT_TRUE(removal_ended(&p, pid, 20000))
		TH_LOG("the device's removal still waits for this process");
	close(p.fd);
	rdma_destroy_event_channel(ch);
}

/*
 * A bind to HP_ADDR (stored in @sin) on a fresh id of @ch, retried for
 * up to 20 s while the address has no RDMA device yet (the new device's
 * GIDs come from a work item after it registers): the id, or NULL.
 */
static struct rdma_cm_id *bind_when_there(struct rdma_event_channel *ch,
					  struct sockaddr_in *sin)
{
	struct rdma_cm_id *id = NULL;
	int i;

	if (!ch || !guest_parse_ipv4(HP_ADDR, 0, sin))
		return NULL;
	for (i = 0; i < 200; i++) {
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
			return NULL;
		if (!rdma_bind_addr(id, (struct sockaddr *)sin))
			return id;
		rdma_destroy_id(id);
		poll(NULL, 0, 100);
	}
	return NULL;
}

/*
 * Remove HP_DEV under @id, bound to it, as an application lets it go:
 * DEVICE_REMOVAL, the devices listed again (which is when librdmacm
 * learns that the device is gone: it closes the device's context once
 * it has, and the device's last id is destroyed), the id destroyed.
 * Soft-RoCE's removal waits for that. Return: whether it completed
 * within 20 s.
 */
static bool removed_under(struct rdma_event_channel *ch,
			  struct rdma_cm_id *id)
{
	struct pollfd p;
	bool done = false;
	int n;
	pid_t pid;

	if (removal_reported(ch, id, &p, &pid) && !listed(HP_DEV, &n) &&
	    !rdma_destroy_id(id))
		done = removal_ended(&p, pid, 20000);
	if (p.fd >= 0)
		close(p.fd);
	return done;
}

TEST_F(hotplug, device_recreated_at_the_same_address)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct rdma_cm_event *ev;
	struct sockaddr_in sin;
	int n = 0;

	ch = guest_channel();
	id = bind_when_there(ch, &sin);
	ASSERT_NE(NULL, id)
		TH_LOG("bind to the new device's address: %s", strerror(errno));
	ASSERT_TRUE(removed_under(ch, id))
		TH_LOG("the device's removal did not complete");

	/* The same device again, on the same netdev and address. */
	ASSERT_EQ(0, sh("rdma link add " HP_DEV " type rxe netdev "
			HP_NETDEV))
		TH_LOG("rdma link add failed");
	id = bind_when_there(ch, &sin);
	ASSERT_NE(NULL, id)
		TH_LOG("bind to the re-created device's address: %s",
		       strerror(errno));
	ASSERT_NE(NULL, id->verbs);
	EXPECT_STREQ(HP_DEV, id->verbs->device->name);
	EXPECT_NE(NULL, id->pd);
	EXPECT_EQ(id->verbs, listed(HP_DEV, &n));
	EXPECT_EQ(self->before + 1, n);
	/* The CM works on it: the address resolves to itself. */
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin,
				       5000))
		TH_LOG("resolve: %s", strerror(errno));
	ev = guest_next_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	/* And it goes again (the teardown's removal would wait for us). */
	ASSERT_TRUE(removed_under(ch, id))
		TH_LOG("the second removal did not complete");
	rdma_destroy_event_channel(ch);
}

TEST_F(hotplug, removal_needs_no_second_listing)
{
	struct pollfd p = { .events = POLLIN };
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct sockaddr_in sin;
	int n;
	pid_t pid;

	ch = guest_channel();
	id = bind_when_there(ch, &sin);
	ASSERT_NE(NULL, id)
		TH_LOG("bind to the new device's address: %s", strerror(errno));
	ASSERT_TRUE(removal_reported(ch, id, &p, &pid));
	ASSERT_EQ(0, rdma_destroy_id(id));
	if (!guest_on_rcm()) {
		ASSERT_EQ(0, poll(&p, 1, 3000))
			TH_LOG("librdmacm 44 let the device go without a second listing");
		EXPECT_EQ(NULL, listed(HP_DEV, &n));
	}
	ASSERT_TRUE(removal_ended(&p, pid, 20000))
		TH_LOG("the removal waits for this process, whose ids are gone");
	close(p.fd);
	rdma_destroy_event_channel(ch);
}

RCM_TEST_MAIN
