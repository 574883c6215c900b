/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib tests: expands layout_list.h into the array LAYOUT_TABLE
 * for whichever <rdma/rdma_cma.h> was included before.
 */
#include <stddef.h>

#include "layout.h"

#define MSIZE(s, path) sizeof(((struct s *)0)->path)

#define STRUCT(s, pad)							\
	{ L_SIZEOF, #s, "", sizeof(struct s), pad },			\
	{ L_ALIGNOF, #s, "", _Alignof(struct s), 0 },
#define MEMBER(s, m)							\
	{ L_OFFSET, #s, #m, offsetof(struct s, m), 0 },			\
	{ L_SIZE, #s, #m, MSIZE(s, m), 0 },
#define NESTED(s, path)							\
	{ L_NESTED_OFFSET, #s, #path, offsetof(struct s, path), 0 },	\
	{ L_SIZE, #s, #path, MSIZE(s, path), 0 },
#define ENUM_TYPE(e)							\
	{ L_SIZEOF, "enum " #e, "", sizeof(enum e), 0 },
#define CONST(c)							\
	{ L_CONST, NULL, #c, (unsigned long long)(c), 0 },		\
	{ L_CONST_SIZE, NULL, #c, sizeof(c), 0 },			\
	{ L_CONST_SIGNED, NULL, #c, (__typeof__(c))-1 < (__typeof__(c))1, 0 },

const struct layout_entry LAYOUT_TABLE[] = {
#include "layout_list.h"
	{ 0, NULL, NULL, 0, 0 }
};
