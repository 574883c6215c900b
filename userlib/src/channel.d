channel.o: channel.c ../../include/uapi/rdma/rcm_user.h rcm_lib.h \
 ../include/rdma/rdma_cma.h ../include/rdma/rcm.h
../../include/uapi/rdma/rcm_user.h:
rcm_lib.h:
../include/rdma/rdma_cma.h:
../include/rdma/rcm.h:
