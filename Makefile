# SPDX-License-Identifier: GPL-2.0-only
#
# rcm: top-level build. The kernel module builds out of tree with Kbuild
# (see Kbuild and drivers/rcm/Kbuild); everything else is plain make.
#
#   make                 rcm.ko against KDIR, the userlib, the selftests
#   make modules         rcm.ko only (KDIR=/path/to/kernel/build)
#   make modules_install install rcm.ko into KDIR's module tree, depmod
#   make userlib         librdmacm.so.1 (userlib/)
#   make selftests       the guest test programs (tools/testing/selftests/rcm)
#   make check           everything, on a fresh Debian 12 machine (root)
#   make check-fresh     .ci/run from a clean clone with an empty cache
#   make demo            boot a guest and show rcm at work
#   make fuzz            a long uapi fuzzer run and the fault injection walk
#                        on the test kernel (RCM_FUZZ_OPS, _SECONDS, _SEED)
#   make style           checkpatch --strict and kernel-doc on the kernel
#                        sources and the uapi header
#   make sparse          sparse over the module (C=2)
#   make dkms-install    register, build and install through DKMS
#   make dkms-source     the DKMS source tree alone, in DKMS_SRC
#   make install         userlib, headers, man pages, rcm-run, the udev
#                        rule, opt-in (PREFIX, DESTDIR); not the module:
#                        make dkms-install or make modules_install
#   make uninstall       undo make install
#   make install-systemwide  opt in: every program on rcm's library
#   make deb             Debian packages rcm-dkms and rcm into build/deb
#                        (debian/, packaging/build-deb.sh)

# The running kernel's headers when it has them, else the newest Debian
# headers installed (linux-headers-amd64): the build machine's own kernel
# need not be a Debian kernel.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(lastword $(sort $(wildcard /lib/modules/*-amd64/build))))
PREFIX ?= /usr/local
# Where the udev rule goes: the administrator's directory for make
# install, the distribution's for a package (debian/rules sets
# /lib/udev/rules.d).
UDEVRULESDIR ?= /etc/udev/rules.d
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
KERNEL_SOURCES := $(filter-out %.mod.c,$(wildcard drivers/rcm/*.c drivers/rcm/*.h)) \
		  include/uapi/rdma/rcm_user.h
# The test-only modules, never installed, held to the same style.
TEST_MODULE_SOURCES := $(wildcard tools/testing/hostile/*.c \
			 tools/testing/ibfabric/*.c tools/testing/include/*.h \
			 tools/testing/vm/harness-selftest/*.c)

all: modules userlib selftests

# Without a kernel build tree, say which package gives one rather than
# let make fail on a missing directory.
define need_kdir
	@test -f "$(KDIR)/Makefile" || { \
		echo "rcm: no kernel build tree$(if $(KDIR), in $(KDIR)): install the running kernel's headers (Debian: apt install linux-headers-$$(uname -r)) or set KDIR" >&2; \
		exit 1; }
endef

modules:
	$(need_kdir)
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

modules_install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	$(MAKE) -C userlib clean
	$(MAKE) -C tools/testing/selftests/rcm clean
	rm -rf build

userlib:
	$(MAKE) -C userlib

selftests:
	$(MAKE) -C tools/testing/selftests/rcm

check:
	tools/testing/check.sh

check-fresh:
	tools/testing/fresh-check.sh

demo:
	tools/testing/demo.sh

# Not part of make check's time budget: ~10^6 operations under KASAN.
fuzz:
	tools/testing/fuzz.sh

# Not a test: rcm and the in-tree rdma_cm side by side (cmtime, system
# calls, memory per id, the attribution, the growth from 100 to 10 000
# connections, the CM modules' allocations); its RCM_BENCH_* and RCM_ATTR_*
# settings are listed at the top of tools/testing/bench.sh.
bench:
	tools/testing/bench.sh

# Not part of make check: the churn of selftests/rcm/stress.c at length
# (RCM_STRESS_CYCLES, RCM_STRESS_KILLS, RCM_STRESS_SEED).
stress:
	tools/testing/stress.sh

# kernel-doc -none: only its warnings, each a failure (-Werror).
style:
	tools/testing/checkpatch.sh --no-tree --strict --quiet --show-types -f \
		$(filter-out %_trace.h %/rcm_user.h %/rcm_compat.h,$(KERNEL_SOURCES))
	# The one file of an out-of-tree module that tests the kernel's
	# version, in the kernel's own form (LINUX_VERSION_CODE >= ...).
	tools/testing/checkpatch.sh --no-tree --strict --quiet --show-types \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f $(filter %/rcm_compat.h,$(KERNEL_SOURCES))
	# __struct_group()'s own layout, as in the kernel's uapi ip.h.
	tools/testing/checkpatch.sh --no-tree --strict --quiet --show-types \
		--ignore PARENTHESIS_ALIGNMENT \
		-f $(filter %/rcm_user.h,$(KERNEL_SOURCES))
	# TRACE_EVENT()'s own layout, as in every kernel trace header.
	tools/testing/checkpatch.sh --no-tree --strict --quiet --show-types \
		--ignore PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE \
		-f $(filter %_trace.h,$(KERNEL_SOURCES))
	tools/testing/checkpatch.sh --no-tree --strict --quiet --show-types \
		-f $(TEST_MODULE_SOURCES)
	tools/testing/kernel-doc.sh -Werror -none $(KERNEL_SOURCES) \
		$(TEST_MODULE_SOURCES)
	# Commit messages in the kernel's form, since the rule held.
	tools/testing/commit-msg.sh --since 789cc6e

# Documentation/ as HTML in build/htmldocs; any Sphinx or kernel-doc
# warning fails it.
htmldocs:
	sphinx-build -q -W --keep-going -b html Documentation build/htmldocs

sparse:
	$(need_kdir)
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 CHECK=sparse modules

# rcm never shadows the distribution's RDMA stack: the library, its
# headers and man pages go to directories of their own (userlib/Makefile
# says which, man pages included); rcm-run, rcm-stat and the udev rule
# that loads rcm.ko when an RDMA device appears are what land in shared
# places.
install: userlib
	$(MAKE) -C userlib install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	install -D -m 0644 include/uapi/rdma/rcm_user.h \
		$(DESTDIR)$(PREFIX)/include/rcm/rdma/rcm_user.h
	install -D -m 0644 packaging/90-rcm.rules $(DESTDIR)$(UDEVRULESDIR)/90-rcm.rules
	$(if $(DESTDIR),,@echo "rcm: make install installs no kernel module:" \
		"run 'make dkms-install' (every kernel, through DKMS) or" \
		"'make modules_install' (KDIR's kernel), then 'modprobe rcm'")

uninstall:
	$(MAKE) -C userlib uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	rm -f $(DESTDIR)$(PREFIX)/include/rcm/rdma/rcm_user.h \
		$(DESTDIR)$(UDEVRULESDIR)/90-rcm.rules
	-rmdir $(DESTDIR)$(PREFIX)/include/rcm/rdma \
		$(DESTDIR)$(PREFIX)/include/rcm 2>/dev/null

# The explicit opt-in: every program of the machine on rcm's library.
install-systemwide: install
	$(MAKE) -C userlib install-systemwide PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

# The DKMS source tree: what the module build needs and nothing else (no
# userlib, no tools, no objects from an in-tree build).
# tools/testing/dkms-check.sh builds from the same tree.
DKMS_SRC ?= /usr/src/rcm-$(VERSION)

dkms-source:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -a Kbuild dkms.conf drivers include $(DKMS_SRC)/
	find $(DKMS_SRC) \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name '.*.d' \
		-o -name modules.order -o -name Module.symvers \) -delete

# rcm-dkms and rcm, built from a copy of the tree into build/deb.
deb:
	packaging/build-deb.sh $(CURDIR)/build/deb

dkms-install:
	if dkms status -m rcm -v $(VERSION) | grep -q .; then \
		dkms remove -m rcm -v $(VERSION) --all; fi
	$(MAKE) dkms-source DKMS_SRC=/usr/src/rcm-$(VERSION)
	dkms add -m rcm -v $(VERSION)
	dkms build -m rcm -v $(VERSION)
	dkms install -m rcm -v $(VERSION)

.PHONY: all modules modules_install clean userlib selftests check check-fresh demo fuzz bench htmldocs \
	stress style uninstall install-systemwide \
	sparse install dkms-source dkms-install deb
