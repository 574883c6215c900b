// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib tests: the layout table of rcm's public headers.
 * Built with -I../include.
 */
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rcm.h>

#define LAYOUT_TABLE layout_ours
#include "layout_table.h"
