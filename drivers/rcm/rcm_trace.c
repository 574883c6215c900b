// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: the one file that instantiates rcm's tracepoints (rcm_trace.h).
 */
#define CREATE_TRACE_POINTS
#include "rcm_trace.h"
