// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib tests: the layout table of the distribution's librdmacm
 * headers (rdma-core 44 on Debian 12). Built without -I../include;
 * when the headers are missing the Makefile defines RCM_NO_SYSTEM_RDMACM
 * and the table is empty.
 */
#ifndef RCM_NO_SYSTEM_RDMACM
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

const int layout_sys_available = 1;
#define LAYOUT_TABLE layout_sys
#include "layout_table.h"
#else
#include <stddef.h>
#include "layout.h"

const int layout_sys_available;
const struct layout_entry layout_sys[] = { { 0, NULL, NULL, 0, 0 } };
#endif
