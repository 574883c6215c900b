addrinfo.o: addrinfo.c rcm_lib.h ../include/rdma/rdma_cma.h \
 ../include/rdma/rcm.h
rcm_lib.h:
../include/rdma/rdma_cma.h:
../include/rdma/rcm.h:
