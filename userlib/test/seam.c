// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib tests: the syscall seam, see seam.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_verbs.h"
#include "seam.h"

#define SEAM_FILES	8
#define SEAM_ARG_MAX	1024

struct seam_id {
	bool		live;
	uint64_t	context;
	uint32_t	reported;
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
uint32_t seam_num_devices = 1;
void (*seam_on_read)(int fd, const struct rcm_event *ev);

static union {
	char		b[SEAM_ARG_MAX];
	uint64_t	align;
} last[SEAM_NR_CMDS];
static int fail_next[SEAM_NR_CMDS];
static struct seam_file files[SEAM_FILES] = { [0 ... SEAM_FILES - 1] = {
	.fd = -1 } };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
/* seam_hold_next_read(): 0 idle, 1 armed, 2 a read held, 3 released */
static int hold_state;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;

void seam_init(void)
{
	setenv("RCM_DEVICE", "/dev/null", 1);
}

void seam_fail_next(unsigned int cmd, int err)
{
	fail_next[SEAM_CMD(cmd)] = err;
}

const void *seam_last(unsigned int cmd)
{
	return last[SEAM_CMD(cmd)].b;
}

/* Caller holds lock. */
static struct seam_file *file_of(int fd)
{
	int i;

	for (i = 0; i < SEAM_FILES; i++)
		if (files[i].fd == fd)
			return &files[i];
	return NULL;
}

static struct seam_id *id_of(struct seam_file *f, uint32_t handle)
{
	if (!f || !handle || handle > f->nids || !f->ids[handle - 1].live)
		return NULL;
	return &f->ids[handle - 1];
}

/* The lowest free handle of f, with room for it; 0 without memory. */
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
	struct rcm_event *n = realloc(f->ev, (f->nev + 1) * sizeof(*n));

	if (!n)
		return false;
	f->ev = n;
	f->ev[f->nev++] = *ev;
	pthread_cond_broadcast(&queued);
	return true;
}

/*
 * Take handle's unread records (of context only, unless any) out of f;
 * into `to` as to_handle if to.
 */
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

static int query(int fd, struct rcm_query *q)
{
	struct seam_file *f = file_of(fd);
	int i;

	for (i = 0; !f && i < SEAM_FILES; i++)
		if (files[i].fd < 0)
			f = &files[i];
	if (!f)
		return ENFILE;
	free(f->ids);
	free(f->ev);
	*f = (struct seam_file){ .fd = fd };
	q->out_abi_version = RCM_ABI_VERSION;
	q->out_num_devices = seam_num_devices;
	q->out_event_size = sizeof(struct rcm_event);
	return q->event_size == sizeof(struct rcm_event) ? 0 : EINVAL;
}

/* The commands whose outputs the library counts on; caller holds lock. */
static int built_in(struct seam_file *f, unsigned int cmd, void *arg)
{
	struct rcm_create_id *c = arg;
	struct rcm_destroy_id *d = arg;
	struct rcm_migrate_id *m = arg;
	struct seam_file *to;
	struct seam_id *id;

	switch (cmd) {
	case RCM_CMD_CREATE_ID:
		c->out_id = new_id_locked(f, c->context);
		return c->out_id ? 0 : ENOMEM;
	case RCM_CMD_DESTROY_ID:
		id = id_of(f, d->id);
		if (!id)
			return ENOENT;
		d->out_events_reported = id->reported;
		move_events(f, d->id, true, 0, NULL, 0);
		id->live = false;
		return 0;
	case RCM_CMD_MIGRATE_ID:
		id = id_of(f, m->id);
		if (!id)
			return ENOENT;
		if (fcntl(m->fd, F_GETFD) < 0)
			return EBADF;
		to = file_of(m->fd);
		if (!to)
			return EINVAL;
		m->out_events_reported = id->reported;
		if (to == f) {
			m->out_id = m->id;
			return 0;
		}
		m->out_id = new_id_locked(to, id->context);
		if (!m->out_id)
			return ENOMEM;
		to->ids[m->out_id - 1].reported = id->reported;
		move_events(f, m->id, true, 0, to, m->out_id);
		id->live = false;
		return 0;
	}
	return 0;
}

int ioctl(int fd, unsigned long request, ...)
{
	unsigned int cmd = _IOC_NR(request), i;
	struct seam_file *f;
	va_list ap;
	void *arg;
	int err;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (_IOC_TYPE(request) != RCM_IOCTL_MAGIC)
		return syscall(SYS_ioctl, fd, request, arg);

	pthread_mutex_lock(&lock);
	f = file_of(fd);
	if (cmd == RCM_CMD_QUERY) {
		err = query(fd, arg);
		f = NULL;
	} else if (!f || cmd < RCM_CMD_BASE ||
		   cmd >= RCM_CMD_BASE + SEAM_NR_CMDS) {
		err = ENOTTY;
		f = NULL;
	}
	if (f) {
		i = SEAM_CMD(cmd);
		seam_calls[i]++;
		seam_seq[i] = ++fake_seq;
		err = fail_next[i];
		fail_next[i] = 0;
		if (!err && !seam_reply[i])
			err = built_in(f, cmd, arg);
		pthread_mutex_unlock(&lock);
		if (!err && seam_reply[i])
			err = seam_reply[i](fd, arg);
		pthread_mutex_lock(&lock);
		memcpy(last[i].b, arg, *(uint32_t *)arg < SEAM_ARG_MAX ?
		       *(uint32_t *)arg : SEAM_ARG_MAX);
	}
	pthread_mutex_unlock(&lock);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

uint32_t seam_new_id(int fd, uint64_t context)
{
	struct seam_file *f;
	uint32_t h = 0;

	pthread_mutex_lock(&lock);
	f = file_of(fd);
	if (f)
		h = new_id_locked(f, context);
	pthread_mutex_unlock(&lock);
	return h;
}

bool seam_live(int fd, uint32_t handle)
{
	bool live;

	pthread_mutex_lock(&lock);
	live = id_of(file_of(fd), handle) != NULL;
	pthread_mutex_unlock(&lock);
	return live;
}

struct rcm_event seam_event(int fd, uint32_t handle, uint32_t event,
			    int32_t status)
{
	struct rcm_event ev = { .id = handle, .event = event,
				.status = status };
	struct seam_id *id;

	pthread_mutex_lock(&lock);
	id = id_of(file_of(fd), handle);
	if (id)
		ev.context = id->context;
	pthread_mutex_unlock(&lock);
	return ev;
}

bool seam_push(int fd, const struct rcm_event *ev)
{
	struct seam_file *f;
	bool ok;

	pthread_mutex_lock(&lock);
	f = file_of(fd);
	ok = f && push_locked(f, ev);
	pthread_mutex_unlock(&lock);
	return ok;
}

void seam_discard(int fd, uint32_t handle, uint64_t context)
{
	struct seam_file *f;

	pthread_mutex_lock(&lock);
	f = file_of(fd);
	if (f)
		move_events(f, handle, false, context, NULL, 0);
	pthread_mutex_unlock(&lock);
}

int seam_queued(int fd)
{
	struct seam_file *f;
	int n;

	pthread_mutex_lock(&lock);
	f = file_of(fd);
	n = f ? f->nev : -1;
	pthread_mutex_unlock(&lock);
	return n;
}

void seam_hold_next_read(void)
{
	pthread_mutex_lock(&lock);
	hold_state = 1;
	pthread_mutex_unlock(&lock);
}

bool seam_wait_held(int ms)
{
	struct timespec ts;
	bool held;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000 + 1;	/* rounded up */
	pthread_mutex_lock(&lock);
	while (hold_state == 1)
		if (pthread_cond_timedwait(&hold_cond, &lock, &ts))
			break;
	held = hold_state == 2;
	pthread_mutex_unlock(&lock);
	return held;
}

void seam_release_read(void)
{
	pthread_mutex_lock(&lock);
	hold_state = hold_state == 2 ? 3 : 0;
	pthread_cond_broadcast(&hold_cond);
	pthread_mutex_unlock(&lock);
}

ssize_t read(int fd, void *buf, size_t len)
{
	struct rcm_event *out = buf;
	struct seam_file *f;
	struct seam_id *id;
	int n, i;

	pthread_mutex_lock(&lock);
	f = file_of(fd);
	if (!f) {
		pthread_mutex_unlock(&lock);
		return syscall(SYS_read, fd, buf, len);
	}
	while (len >= sizeof(*out) && !f->nev &&
	       !(fcntl(fd, F_GETFL) & O_NONBLOCK))
		pthread_cond_wait(&queued, &lock);
	n = len < sizeof(*out) ? -EINVAL : !f->nev ? -EAGAIN :
	    (int)(len / sizeof(*out)) < f->nev ? (int)(len / sizeof(*out)) :
	    f->nev;
	for (i = 0; i < n; i++) {
		out[i] = f->ev[i];
		id = id_of(f, out[i].id);
		if (id)
			id->reported++;
		if (seam_on_read)
			seam_on_read(fd, &out[i]);
	}
	if (n > 0) {
		memmove(f->ev, f->ev + n, (f->nev - n) * sizeof(*f->ev));
		f->nev -= n;
		if (hold_state == 1) {
			hold_state = 2;
			pthread_cond_broadcast(&hold_cond);
			while (hold_state == 2)
				pthread_cond_wait(&hold_cond, &lock);
			hold_state = 0;
		}
	}
	pthread_mutex_unlock(&lock);
	if (n < 0) {
		errno = -n;
		return -1;
	}
	return n * sizeof(*out);
}
