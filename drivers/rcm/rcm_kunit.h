/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What rcm's KUnit suites (rcm_*_kunit.c) share: the definition of a
 * suite, so that a file says only its cases, and the description of a
 * table-driven case's parameter.
 */
#ifndef RCM_KUNIT_H
#define RCM_KUNIT_H

#include <kunit/test.h>

/**
 * RCM_KUNIT_SUITE_FIXTURE() - define and register a suite with a fixture
 * @_name: the suite's name, "rcm_" and the area it tests (the kernel's
 *	KUnit style); also the prefix of the suite's identifiers
 * @_init: run before each case (and each parameter of a case), or NULL
 * @_exit: run after each, or NULL
 * @...: the suite's KUNIT_CASE()s and KUNIT_CASE_PARAM()s, in the order
 *	they run; a KUNIT_CASE_PARAM()'s rows are results of their own
 *	(kunit.SUITE.CASE.ROW in the guest's report)
 */
#define RCM_KUNIT_SUITE_FIXTURE(_name, _init, _exit, ...)		\
	static struct kunit_case _name##_cases[] = { __VA_ARGS__, {} };	\
	static struct kunit_suite _name##_suite = {			\
		.name = #_name,						\
		.init = _init,						\
		.exit = _exit,						\
		.test_cases = _name##_cases,				\
	};								\
	kunit_test_suite(_name##_suite)

/**
 * RCM_KUNIT_SUITE() - define and register a suite without a fixture
 * @_name: as for RCM_KUNIT_SUITE_FIXTURE()
 * @...: the suite's cases, as for RCM_KUNIT_SUITE_FIXTURE()
 */
#define RCM_KUNIT_SUITE(_name, ...)					\
	RCM_KUNIT_SUITE_FIXTURE(_name, NULL, NULL, __VA_ARGS__)

/**
 * RCM_KUNIT_PARAMS() - a table's rows as a case's parameters
 * @name: the prefix of the generator: name##_gen_params() for
 *	KUNIT_CASE_PARAM()
 * @table: an array whose element has a member ``desc``, the row's name
 *	in the results (one word: no spaces)
 */
#define RCM_KUNIT_PARAMS(name, table)					\
	static void name##_desc(const typeof(table[0]) *row, char *desc)	\
	{								\
		strscpy(desc, row->desc, KUNIT_PARAM_DESC_SIZE);	\
	}								\
	KUNIT_ARRAY_PARAM(name, table, name##_desc)

#endif /* RCM_KUNIT_H */
