// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * layout: rcm's public headers have the ABI of rdma-core 44's.
 *
 * For every public struct: sizeof, alignof, and offset and size of every
 * member (plus the nested members applications reach into); for every
 * enum: its size; for every enumerator and macro: value, size and
 * signedness. layout_ours.c measures our headers, layout_sys.c the
 * distribution's, and every entry must be equal. Independently of the
 * distribution's headers, ours must match the numbers of the reference
 * tables (librdmacm-abi.md section 2.2), and the members listed for each
 * struct must cover all of it except the documented padding.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "helpers.h"
#include "layout.h"

static const char *const kind_names[] = {
	[L_SIZEOF] = "sizeof",
	[L_ALIGNOF] = "alignof",
	[L_OFFSET] = "offset",
	[L_NESTED_OFFSET] = "offset",
	[L_SIZE] = "size",
	[L_CONST] = "value",
	[L_CONST_SIZE] = "sizeof",
	[L_CONST_SIGNED] = "signed",
};

static bool same_key(const struct layout_entry *a,
		     const struct layout_entry *b)
{
	return a->kind == b->kind &&
	       !strcmp(a->type ? a->type : "", b->type ? b->type : "") &&
	       !strcmp(a->name, b->name);
}

static const struct layout_entry *find(const struct layout_entry *table,
				       const struct layout_entry *key)
{
	for (; table->name; table++)
		if (same_key(table, key))
			return table;
	return NULL;
}

static void print_key(const struct layout_entry *e)
{
	if (e->type)
		fprintf(stderr, "%s %s%s%s", kind_names[e->kind], e->type,
			*e->name ? "." : "", e->name);
	else
		fprintf(stderr, "%s %s", kind_names[e->kind], e->name);
}

static void anchor(enum layout_kind kind, const char *type,
		   const char *name, unsigned long long want)
{
	struct layout_entry key = { kind, type, name, 0, 0 };
	const struct layout_entry *e = find(layout_ours, &key);

	if (e && e->value == want)
		return;
	fprintf(stderr, "ours: ");
	print_key(&key);
	if (e)
		fprintf(stderr, " = %llu, reference says %llu\n", e->value,
			want);
	else
		fprintf(stderr, " not measured\n");
	t_failures++;
}

#define ANCHOR anchor

/* Reference numbers for the structs applications rely on most. */
static void check_reference(void)
{
	ANCHOR(L_SIZEOF, "rdma_event_channel", "", 4);
	ANCHOR(L_SIZEOF, "rdma_ib_addr", "", 40);
	ANCHOR(L_SIZEOF, "rdma_addr", "", 296);
	ANCHOR(L_OFFSET, "rdma_addr", "addr", 256);
	ANCHOR(L_SIZEOF, "rdma_route", "", 312);
	ANCHOR(L_SIZEOF, "rdma_cm_id", "", 416);
	ANCHOR(L_ALIGNOF, "rdma_cm_id", "", 8);
	ANCHOR(L_OFFSET, "rdma_cm_id", "route", 32);
	ANCHOR(L_NESTED_OFFSET, "rdma_cm_id", "route.addr.dst_addr", 160);
	ANCHOR(L_NESTED_OFFSET, "rdma_cm_id", "route.path_rec", 328);
	ANCHOR(L_OFFSET, "rdma_cm_id", "ps", 344);
	ANCHOR(L_OFFSET, "rdma_cm_id", "port_num", 348);
	ANCHOR(L_OFFSET, "rdma_cm_id", "event", 352);
	ANCHOR(L_OFFSET, "rdma_cm_id", "pd", 400);
	ANCHOR(L_OFFSET, "rdma_cm_id", "qp_type", 408);
	ANCHOR(L_SIZEOF, "rdma_conn_param", "", 24);
	ANCHOR(L_OFFSET, "rdma_conn_param", "qp_num", 16);
	ANCHOR(L_SIZEOF, "rdma_ud_param", "", 56);
	ANCHOR(L_OFFSET, "rdma_ud_param", "ah_attr", 16);
	ANCHOR(L_OFFSET, "rdma_ud_param", "qkey", 52);
	ANCHOR(L_SIZEOF, "rdma_cm_event", "", 80);
	ANCHOR(L_OFFSET, "rdma_cm_event", "param", 24);
	ANCHOR(L_SIZE, "rdma_cm_event", "param", 56);
	ANCHOR(L_SIZEOF, "rdma_addrinfo", "", 96);
	ANCHOR(L_OFFSET, "rdma_addrinfo", "ai_next", 88);
	ANCHOR(L_SIZEOF, "rdma_cm_join_mc_attr_ex", "", 16);
	ANCHOR(L_CONST, NULL, "RDMA_PS_IB", 0x13F);
	ANCHOR(L_CONST, NULL, "RDMA_CM_EVENT_TIMEWAIT_EXIT", 15);
	ANCHOR(L_CONST, NULL, "RDMA_UDP_QKEY", 0x01234567);
	ANCHOR(L_CONST, NULL, "RDMA_IB_IP_PS_MASK", 0xFFFFFFFFFFFF0000ULL);
}

/*
 * Bytes of each struct covered by no direct member must equal the padding
 * the list declares: a member missing from layout_list.h would show up
 * as extra padding.
 */
static void check_coverage(const char *which, const struct layout_entry *t)
{
	const struct layout_entry *s, *e;

	for (s = t; s->name; s++) {
		unsigned char *covered;
		unsigned long long i, holes = 0;

		if (s->kind != L_SIZEOF || !strncmp(s->type, "enum ", 5))
			continue;
		covered = calloc(s->value, 1);
		if (!covered) {
			t_failures++;
			return;
		}
		for (e = t; e->name; e++) {
			if (e->kind != L_OFFSET || strcmp(e->type, s->type))
				continue;
			/* the L_SIZE entry follows its L_OFFSET */
			for (i = e->value; i < e->value + e[1].value &&
			     i < s->value; i++)
				covered[i] = 1;
		}
		for (i = 0; i < s->value; i++)
			holes += !covered[i];
		free(covered);
		if (holes != s->arg) {
			fprintf(stderr,
				"%s: struct %s: %llu uncovered bytes, expected %llu\n",
				which, s->type, holes, s->arg);
			t_failures++;
		}
	}
}

static int compare(void)
{
	const struct layout_entry *e, *o;
	int n = 0;

	for (e = layout_sys; e->name; e++, n++) {
		o = find(layout_ours, e);
		if (!o) {
			print_key(e);
			fprintf(stderr, ": missing in ours\n");
			t_failures++;
		} else if (o->value != e->value) {
			print_key(e);
			fprintf(stderr, ": ours %llu, system %llu\n",
				o->value, e->value);
			t_failures++;
		}
	}
	for (o = layout_ours; o->name; o++) {
		if (!find(layout_sys, o)) {
			print_key(o);
			fprintf(stderr, ": missing in system table\n");
			t_failures++;
		}
	}
	return n;
}

int main(int argc, char *argv[])
{
	int n;

	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;

	check_reference();
	check_coverage("ours", layout_ours);
	if (!layout_sys_available) {
		printf("no system librdmacm headers: reference numbers only\n");
		return t_failures ? T_EXIT_FAIL : T_EXIT_SKIP;
	}
	check_coverage("system", layout_sys);
	n = compare();
	if (n < 200) {
		fprintf(stderr, "only %d entries compared\n", n);
		t_failures++;
	}
	printf("%d entries compared\n", n);
	return t_exit();
}
