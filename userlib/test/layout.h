/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib tests: the table each layout translation unit fills.
 */
#ifndef RCM_TEST_LAYOUT_H
#define RCM_TEST_LAYOUT_H

enum layout_kind {
	L_SIZEOF,	/* value: sizeof; arg: padding bytes expected */
	L_ALIGNOF,
	L_OFFSET,	/* member of a STRUCT; next entry is its L_SIZE */
	L_NESTED_OFFSET,
	L_SIZE,
	L_CONST,
	L_CONST_SIZE,
	L_CONST_SIGNED,
};

struct layout_entry {
	enum layout_kind kind;
	const char *type;	/* struct or enum name; NULL for CONST */
	const char *name;	/* member path or constant name */
	unsigned long long value;
	unsigned long long arg;
};

/* Terminated by an entry with type == NULL and name == NULL. */
extern const struct layout_entry layout_ours[];
extern const struct layout_entry layout_sys[];
extern const int layout_sys_available;

#endif /* RCM_TEST_LAYOUT_H */
