// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* rcm userlib tests: the syscall seam, see seam.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_verbs.h"
#include "seam.h"

#define SEAM_FILES	8

struct seam_id {
	bool		live;
	uint64_t	context;
	uint32_t	reported;	/* its records read() returned */
};

struct seam_file {
	int		fd;		/* -1: slot free */
	struct seam_id	*ids;		/* handle h is ids[h - 1] */
	uint32_t	nids;
	struct rcm_event *ev;		/* unread records, oldest first */
	int		nev;
};

seam_fn seam_reply[SEAM_NR_CMDS];
int seam_calls[SEAM_NR_CMDS];
int seam_seq[SEAM_NR_CMDS];
void (*seam_on_read)(int fd, const struct rcm_event *ev);

uint64_t seam_last_arg[SEAM_NR_CMDS][128];
int seam_fail[SEAM_NR_CMDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
static struct seam_file files[SEAM_FILES] = {
	[0 ... SEAM_FILES - 1] = { .fd = -1 }
};

/* The file of fd, or NULL; lock_file() takes the lock it needs. */
static struct seam_file *file_of(int fd)
{
	int i;

	for (i = 0; i < SEAM_FILES; i++)
		if (files[i].fd == fd)
			return &files[i];
	return NULL;
}

static struct seam_file *lock_file(int fd)
{
	pthread_mutex_lock(&lock);
	return file_of(fd);
}

static struct seam_id *id_of(struct seam_file *f, uint32_t handle)
{
	if (!f || !handle || handle > f->nids || !f->ids[handle - 1].live)
		return NULL;
	return &f->ids[handle - 1];
}

/* The lowest free handle of f, now context's; 0 without memory. */
static uint32_t new_id_locked(struct seam_file *f, uint64_t context)
{
	struct seam_id *ids;
	uint32_t h;

	for (h = 1; h <= f->nids && f->ids[h - 1].live; h++)
		;
	if (h > f->nids) {
		ids = realloc(f->ids, 2 * (f->nids + 16) * sizeof(*ids));
		if (!ids)
			return 0;
		memset(ids + f->nids, 0, (f->nids + 32) * sizeof(*ids));
		f->ids = ids;
		f->nids = 2 * (f->nids + 16);
	}
	f->ids[h - 1] = (struct seam_id){ .live = true, .context = context };
	return h;
}

static bool push_locked(struct seam_file *f, const struct rcm_event *ev)
{
	struct rcm_event *n = f ? realloc(f->ev, (f->nev + 1) * sizeof(*n)) : 0;

	if (!n)
		return false;
	f->ev = n;
	f->ev[f->nev++] = *ev;
	pthread_cond_broadcast(&queued);
	return true;
}

/* Take handle's unread records (of context, unless any) out of f, to `to`. */
static void move_events(struct seam_file *f, uint32_t handle, bool any,
			uint64_t context, struct seam_file *to,
			uint32_t to_handle)
{
	int i, kept = 0;

	for (i = 0; i < f->nev; i++) {
		if (f->ev[i].id != handle ||
		    (!any && f->ev[i].context != context)) {
			f->ev[kept++] = f->ev[i];
			continue;
		}
		f->ev[i].id = to_handle;
		if (to)
			push_locked(to, &f->ev[i]);
	}
	f->nev = kept;
}

/* A new open file; caller holds lock. */
static int query(struct seam_file *f, int fd, struct rcm_query *q)
{
	int i;

	for (i = 0; !f && i < SEAM_FILES; i++)
		f = files[i].fd < 0 ? &files[i] : NULL;
	if (!f)
		return ENFILE;
	free(f->ids);
	free(f->ev);
	*f = (struct seam_file){ .fd = fd };
	q->out_abi_version = RCM_ABI_VERSION;
	q->out_num_devices = 1;
	q->out_event_size = sizeof(struct rcm_event);
	return q->event_size == sizeof(struct rcm_event) ? 0 : EINVAL;
}

/* The commands whose outputs the library counts on; caller holds lock. */
static int built_in(struct seam_file *f, unsigned int cmd, void *arg)
{
	struct rcm_create_id *c = arg;
	struct rcm_destroy_id *d = arg;
	struct rcm_migrate_id *m = arg;	/* id at the offset of d's */
	struct seam_file *to = NULL;
	struct seam_id *id = id_of(f, d->id);

	if (cmd == RCM_CMD_CREATE_ID) {
		c->out_id = new_id_locked(f, c->context);
		return c->out_id ? 0 : ENOMEM;
	}
	if (cmd != RCM_CMD_DESTROY_ID && cmd != RCM_CMD_MIGRATE_ID)
		return 0;
	if (!id)
		return ENOENT;
	if (cmd == RCM_CMD_DESTROY_ID) {
		d->out_events_reported = id->reported;
	} else {
		to = file_of(m->fd);	/* not f: the library never asks */
		m->out_id = to ? new_id_locked(to, id->context) : 0;
		if (!m->out_id)
			return to ? ENOMEM : EINVAL;
		m->out_events_reported = id->reported;
		to->ids[m->out_id - 1].reported = id->reported;
	}
	move_events(f, d->id, true, 0, to, to ? m->out_id : 0);
	id->live = false;
	return 0;
}

int ioctl(int fd, unsigned long request, ...)
{
	unsigned int cmd = _IOC_NR(request), i = SEAM_CMD(cmd);
	struct seam_file *f;
	va_list ap;
	void *arg;
	int err;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (_IOC_TYPE(request) != RCM_IOCTL_MAGIC)
		return syscall(SYS_ioctl, fd, request, arg);

	f = lock_file(fd);
	if (cmd == RCM_CMD_QUERY) {
		err = query(f, fd, arg);
	} else if (!f || i >= SEAM_NR_CMDS) {	/* unsigned: below too */
		err = ENOTTY;
	} else {
		seam_calls[i]++;
		seam_seq[i] = ++fake_seq;
		err = seam_fail[i];
		seam_fail[i] = 0;
		if (!err)
			err = built_in(f, cmd, arg);
		pthread_mutex_unlock(&lock);
		if (!err && seam_reply[i])
			err = seam_reply[i](fd, arg);
		pthread_mutex_lock(&lock);
		memcpy(seam_last_arg[i], arg,
		       *(uint32_t *)arg < sizeof(seam_last_arg[i]) ?
		       *(uint32_t *)arg : sizeof(seam_last_arg[i]));
	}
	pthread_mutex_unlock(&lock);
	errno = err ? err : errno;
	return err ? -1 : 0;
}

uint32_t seam_new_id(int fd, uint64_t context)
{
	struct seam_file *f = lock_file(fd);
	uint32_t h = f ? new_id_locked(f, context) : 0;

	pthread_mutex_unlock(&lock);
	return h;
}

bool seam_live(int fd, uint32_t handle)
{
	bool live = id_of(lock_file(fd), handle);

	pthread_mutex_unlock(&lock);
	return live;
}

struct rcm_event seam_event(int fd, uint32_t handle, uint32_t event,
			    int32_t status)
{
	struct seam_id *id = id_of(lock_file(fd), handle);
	struct rcm_event ev = { .context = id ? id->context : 0, .id = handle,
				.event = event, .status = status };

	pthread_mutex_unlock(&lock);
	return ev;
}

bool seam_push(int fd, const struct rcm_event *ev)
{
	bool ok = push_locked(lock_file(fd), ev);

	pthread_mutex_unlock(&lock);
	return ok;
}

void seam_discard(int fd, uint32_t handle, uint64_t context)
{
	move_events(lock_file(fd), handle, false, context, NULL, 0);
	pthread_mutex_unlock(&lock);
}

int seam_queued(int fd)
{
	struct seam_file *f = lock_file(fd);
	int n = f ? f->nev : -1;

	pthread_mutex_unlock(&lock);
	return n;
}

ssize_t read(int fd, void *buf, size_t len)
{
	struct seam_file *f = lock_file(fd);
	int n, i, whole = len / sizeof(struct rcm_event);
	struct rcm_event *out = buf;

	if (!f) {
		pthread_mutex_unlock(&lock);
		return syscall(SYS_read, fd, buf, len);
	}
	while (whole && !f->nev && !(fcntl(fd, F_GETFL) & O_NONBLOCK))
		pthread_cond_wait(&queued, &lock);
	n = !whole ? -EINVAL : !f->nev ? -EAGAIN : whole < f->nev ? whole :
	    f->nev;
	for (i = 0; i < n; i++) {
		out[i] = f->ev[i];
		if (id_of(f, out[i].id))
			f->ids[out[i].id - 1].reported++;
	}
	if (n > 0) {
		memmove(f->ev, f->ev + n, (f->nev - n) * sizeof(*f->ev));
		f->nev -= n;
	}
	pthread_mutex_unlock(&lock);
	for (i = 0; seam_on_read && i < n; i++)
		seam_on_read(fd, &out[i]);
	errno = n < 0 ? -n : errno;
	return n < 0 ? -1 : n * (ssize_t)sizeof(*out);
}

/*
 * _FORTIFY_SOURCE (Debian's build flags) turns a read() into a buffer of
 * known size into __read_chk(), which glibc would serve past the seam
 * (the events from /dev/null): checked like glibc's, then the seam's.
 */
ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		abort();
	return read(fd, buf, len);
}
