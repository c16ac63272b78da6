/* tests/dist/emu/nccl.h - the part of NCCL that ctensor_dist.h's "nccl" backend uses,
   emulated over MPI on the CUDA emulator's device memory (tests/cuda/emu), so that the
   backend's code runs under mpirun on a machine without a GPU:
       mpirun -np 2 build/cuda/test_cuda_emu --nccl
   A test of the logic (the bootstrap, the types and ops the backend picks, in-place
   and out-of-place buffers, device pointers where NCCL wants them, events as
   requests, error strings), NOT of NCCL: every call runs to completion when it is
   queued (as the emulator's streams do), through the matching blocking MPI
   collective on a communicator of its own; ncclGroupStart/End gather sends and
   receives and run them together. Each buffer must be emulated device memory (the
   emulator aborts otherwise); it is opened for the MPI call like a cudaMemcpy.
   Not emulated: NCCL's asynchronous errors (ncclCommGetAsyncError says success), a
   peer that leaves (the MPI call would wait for it). */
#ifndef CT_EMU_NCCL_H
#define CT_EMU_NCCL_H
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#include <mpi.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <vector>

#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 0
#define NCCL_VERSION(X, Y, Z) (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : (X) * 10000 + (Y) * 100 + (Z))
#define NCCL_VERSION_CODE NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH)

typedef enum {
    ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3, ncclInvalidArgument = 4,
    ncclInvalidUsage = 5, ncclRemoteError = 6, ncclInProgress = 7, ncclNumResults = 8
} ncclResult_t;
typedef enum {
    ncclInt8 = 0, ncclChar = 0, ncclUint8 = 1, ncclInt32 = 2, ncclInt = 2, ncclUint32 = 3, ncclInt64 = 4, ncclUint64 = 5,
    ncclFloat16 = 6, ncclHalf = 6, ncclFloat32 = 7, ncclFloat = 7, ncclFloat64 = 8, ncclDouble = 8, ncclBfloat16 = 9
} ncclDataType_t;
typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;
#define NCCL_UNIQUE_ID_BYTES 128
typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;
struct ct_emu_nccl_comm { MPI_Comm c; int rank, n, aborted; };
typedef ct_emu_nccl_comm *ncclComm_t;

namespace ct_emu_nccl {
struct p2p { bool send; void *buf; size_t n; ncclDataType_t t; int peer; ncclComm_t comm; };
inline int group_depth = 0;
inline std::vector<p2p> pending;
inline size_t size_of(ncclDataType_t t) {
    switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
    }
}
inline MPI_Datatype mpi_type(ncclDataType_t t) {
    switch (t) {
    case ncclInt8: return MPI_INT8_T;
    case ncclUint8: return MPI_UINT8_T;
    case ncclInt32: return MPI_INT32_T;
    case ncclUint32: return MPI_UINT32_T;
    case ncclInt64: return MPI_INT64_T;
    case ncclUint64: return MPI_UINT64_T;
    case ncclFloat32: return MPI_FLOAT;
    case ncclFloat64: return MPI_DOUBLE;
    default: return MPI_UINT16_T;   /* float16 / bfloat16: moved, not reduced here */
    }
}
/* a reduction the emulator can do through MPI (not on 16-bit floats, not avg) */
inline bool reducible(ncclDataType_t t, ncclRedOp_t op) { return t != ncclFloat16 && t != ncclBfloat16 && op != ncclAvg; }
inline MPI_Op mpi_op(ncclRedOp_t op) {
    switch (op) {
    case ncclProd: return MPI_PROD;
    case ncclMax: return MPI_MAX;
    case ncclMin: return MPI_MIN;
    default: return MPI_SUM;
    }
}
inline ncclResult_t usable(ncclComm_t comm) { return !comm ? ncclInvalidArgument : comm->aborted ? ncclInvalidUsage : ncclSuccess; }
inline ncclResult_t mpi(int rc) { return rc == MPI_SUCCESS ? ncclSuccess : ncclSystemError; }
inline void device_side(const void *p, size_t bytes, const char *what) { ct_emu::check_side(p, bytes, true, what); }
}  // namespace ct_emu_nccl

inline const char *ncclGetErrorString(ncclResult_t r) {
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}
inline ncclResult_t ncclGetVersion(int *v) { *v = NCCL_VERSION_CODE; return ncclSuccess; }
inline ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
    memset(id, 0, sizeof *id);
    snprintf(id->internal, sizeof id->internal, "ct-emu-nccl %ld %ld", (long)getpid(), (long)time(NULL));
    return ncclSuccess;
}
/* the ranks with the same id make one communicator (split by the id's hash) */
inline ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
    unsigned h = 2166136261u;
    for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++) h = (h ^ (unsigned char)id.internal[i]) * 16777619u;
    ct_emu_nccl_comm *c = new ct_emu_nccl_comm{MPI_COMM_NULL, rank, nranks, 0};
    int size = 0;
    if (MPI_Comm_split(MPI_COMM_WORLD, (int)(h & 0x7fffffff), rank, &c->c) != MPI_SUCCESS || MPI_Comm_size(c->c, &size) != MPI_SUCCESS ||
        size != nranks) {
        if (c->c != MPI_COMM_NULL) MPI_Comm_free(&c->c);
        delete c;
        return ncclInvalidArgument;
    }
    *comm = c;
    return ncclSuccess;
}
inline ncclResult_t ncclCommDestroy(ncclComm_t comm) {
    if (!comm) return ncclInvalidArgument;
    if (!comm->aborted) MPI_Comm_free(&comm->c);
    delete comm;
    return ncclSuccess;
}
/* the communicator goes without waiting for the peers (its MPI communicator is left) */
inline ncclResult_t ncclCommAbort(ncclComm_t comm) {
    if (!comm) return ncclInvalidArgument;
    comm->aborted = 1;
    delete comm;
    return ncclSuccess;
}
inline ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *err) {
    if (!comm || !err) return ncclInvalidArgument;
    *err = ncclSuccess;
    return ncclSuccess;
}
inline ncclResult_t ncclCommCount(const ncclComm_t comm, int *n) { if (!comm) return ncclInvalidArgument; *n = comm->n; return ncclSuccess; }
inline ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *r) { if (!comm) return ncclInvalidArgument; *r = comm->rank; return ncclSuccess; }

inline ncclResult_t ncclAllReduce(const void *send, void *recv, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm, cudaStream_t) {
    ncclResult_t r = ct_emu_nccl::usable(comm);
    if (r) return r;
    if (!ct_emu_nccl::reducible(t, op)) return ncclInvalidArgument;
    size_t b = n * ct_emu_nccl::size_of(t);
    ct_emu_nccl::device_side(send, b, "ncclAllReduce sendbuff");
    ct_emu_nccl::device_side(recv, b, "ncclAllReduce recvbuff");
    ct_emu::opened open_;
    return ct_emu_nccl::mpi(MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, (int)n, ct_emu_nccl::mpi_type(t),
                                          ct_emu_nccl::mpi_op(op), comm->c));
}
inline ncclResult_t ncclBroadcast(const void *send, void *recv, size_t n, ncclDataType_t t, int root, ncclComm_t comm, cudaStream_t) {
    ncclResult_t r = ct_emu_nccl::usable(comm);
    if (r) return r;
    if (root < 0 || root >= comm->n) return ncclInvalidArgument;
    size_t b = n * ct_emu_nccl::size_of(t);
    if (comm->rank == root) ct_emu_nccl::device_side(send, b, "ncclBroadcast sendbuff");
    ct_emu_nccl::device_side(recv, b, "ncclBroadcast recvbuff");
    ct_emu::opened open_;
    if (comm->rank == root && send != recv) memmove(recv, send, b);
    return ct_emu_nccl::mpi(MPI_Bcast(recv, (int)n, ct_emu_nccl::mpi_type(t), root, comm->c));
}
inline ncclResult_t ncclAllGather(const void *send, void *recv, size_t n, ncclDataType_t t, ncclComm_t comm, cudaStream_t) {
    ncclResult_t r = ct_emu_nccl::usable(comm);
    if (r) return r;
    size_t b = n * ct_emu_nccl::size_of(t);
    ct_emu_nccl::device_side(send, b, "ncclAllGather sendbuff");
    ct_emu_nccl::device_side(recv, b * (size_t)comm->n, "ncclAllGather recvbuff");
    ct_emu::opened open_;
    bool in_place = send == (const char *)recv + (size_t)comm->rank * b;
    MPI_Datatype mt = ct_emu_nccl::mpi_type(t);
    return ct_emu_nccl::mpi(MPI_Allgather(in_place ? MPI_IN_PLACE : send, (int)n, mt, recv, (int)n, mt, comm->c));
}
inline ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                                      cudaStream_t) {
    ncclResult_t r = ct_emu_nccl::usable(comm);
    if (r) return r;
    if (!ct_emu_nccl::reducible(t, op)) return ncclInvalidArgument;
    size_t b = n * ct_emu_nccl::size_of(t);
    ct_emu_nccl::device_side(send, b * (size_t)comm->n, "ncclReduceScatter sendbuff");
    ct_emu_nccl::device_side(recv, b, "ncclReduceScatter recvbuff");
    ct_emu::opened open_;
    if (send == (const char *)recv - (size_t)comm->rank * b) return ncclInvalidUsage;   /* (in place: not used by ctensor) */
    return ct_emu_nccl::mpi(MPI_Reduce_scatter_block(send, recv, (int)n, ct_emu_nccl::mpi_type(t), ct_emu_nccl::mpi_op(op), comm->c));
}
inline ncclResult_t ncclGroupStart() { ct_emu_nccl::group_depth++; return ncclSuccess; }
inline ncclResult_t ct_emu_nccl_run(std::vector<ct_emu_nccl::p2p> &ops) {
    std::vector<MPI_Request> rq(ops.size(), MPI_REQUEST_NULL);
    ct_emu::opened open_;
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < ops.size() && rc == MPI_SUCCESS; i++) {
        ct_emu_nccl::p2p &o = ops[i];
        rc = o.send ? MPI_Isend(o.buf, (int)o.n, ct_emu_nccl::mpi_type(o.t), o.peer, 77, o.comm->c, &rq[i])
                    : MPI_Irecv(o.buf, (int)o.n, ct_emu_nccl::mpi_type(o.t), o.peer, 77, o.comm->c, &rq[i]);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Waitall((int)rq.size(), rq.data(), MPI_STATUSES_IGNORE);
    ops.clear();
    return ct_emu_nccl::mpi(rc);
}
inline ncclResult_t ncclGroupEnd() {
    if (ct_emu_nccl::group_depth <= 0) return ncclInvalidUsage;
    if (--ct_emu_nccl::group_depth > 0) return ncclSuccess;
    return ct_emu_nccl_run(ct_emu_nccl::pending);
}
inline ncclResult_t ct_emu_nccl_p2p(bool send, const void *buf, size_t n, ncclDataType_t t, int peer, ncclComm_t comm) {
    ncclResult_t r = ct_emu_nccl::usable(comm);
    if (r) return r;
    if (peer < 0 || peer >= comm->n || peer == comm->rank) return ncclInvalidArgument;
    ct_emu_nccl::device_side(buf, n * ct_emu_nccl::size_of(t), send ? "ncclSend sendbuff" : "ncclRecv recvbuff");
    ct_emu_nccl::pending.push_back(ct_emu_nccl::p2p{send, (void *)buf, n, t, peer, comm});
    if (ct_emu_nccl::group_depth > 0) return ncclSuccess;
    return ct_emu_nccl_run(ct_emu_nccl::pending);
}
inline ncclResult_t ncclSend(const void *buf, size_t n, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t) {
    return ct_emu_nccl_p2p(true, buf, n, t, peer, comm);
}
inline ncclResult_t ncclRecv(void *buf, size_t n, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t) {
    return ct_emu_nccl_p2p(false, buf, n, t, peer, comm);
}
#endif
