/* nccl_dl.h - NCCL loaded at run time with dlopen("libnccl.so.2"), with our
 * own declarations of the few types and functions used (copied from NCCL
 * 2.28's nccl.h), so the engine builds and starts without NCCL installed. */
#ifndef MGPU_NCCL_DL_H
#define MGPU_NCCL_DL_H
#include <stddef.h>
#include "mgpu/err.h"

typedef struct ncclComm *ncclComm_t;
typedef void *nccl_cudaStream_t; /* cudaStream_t */

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;

typedef enum {
    ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3,
    ncclInvalidArgument = 4, ncclInvalidUsage = 5, ncclRemoteError = 6, ncclInProgress = 7, ncclNumResults = 8
} ncclResult_t;

typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;
typedef enum { ncclInt32 = 2, ncclFloat16 = 6, ncclFloat32 = 7, ncclBfloat16 = 9 } ncclDataType_t;

#define NCCL_CONFIG_UNDEF_INT (-2147483647 - 1)
#define NCCL_CONFIG_MAGIC 0xcafebeefu
#define NCCL_VERSION_CODE_OF(X, Y, Z) (((X) <= 2 && (Y) <= 8) ? (X)*1000 + (Y)*100 + (Z) : (X)*10000 + (Y)*100 + (Z))

/* ncclConfig_v22800: the layout of NCCL 2.28 (2.28.3 on the GPU machine,
 * 2.28.9 in the toolkit here). size/magic/version tell NCCL which layout it
 * is given, so an older or newer library reads only what it knows. */
typedef struct ncclConfig_t {
    size_t size;
    unsigned int magic;
    unsigned int version;
    int blocking;
    int cgaClusterSize;
    int minCTAs;
    int maxCTAs;
    const char *netName;
    int splitShare;
    int trafficClass;
    const char *commName;
    int collnetEnable;
    int CTAPolicy;
    int shrinkShare;
    int nvlsCTAs;
    int nChannelsPerNetPeer;
    int nvlinkCentricSched;
} ncclConfig_t;

typedef struct mgpu_nccl_api {
    int version; /* ncclGetVersion: 22803 for 2.28.3 */
    ncclResult_t (*GetVersion)(int *version);
    const char *(*GetErrorString)(ncclResult_t result);
    const char *(*GetLastError)(ncclComm_t comm);
    ncclResult_t (*GetUniqueId)(ncclUniqueId *id);
    ncclResult_t (*CommInitRankConfig)(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t *config);
    ncclResult_t (*CommSplit)(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config);
    ncclResult_t (*CommFinalize)(ncclComm_t comm);
    ncclResult_t (*CommDestroy)(ncclComm_t comm);
    ncclResult_t (*CommAbort)(ncclComm_t comm);
    ncclResult_t (*CommGetAsyncError)(ncclComm_t comm, ncclResult_t *err);
    ncclResult_t (*CommCount)(ncclComm_t comm, int *count);
    ncclResult_t (*CommUserRank)(ncclComm_t comm, int *rank);
    ncclResult_t (*AllReduce)(const void *s, void *r, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                              nccl_cudaStream_t st);
    ncclResult_t (*AllGather)(const void *s, void *r, size_t count, ncclDataType_t t, ncclComm_t comm,
                              nccl_cudaStream_t st);
    ncclResult_t (*ReduceScatter)(const void *s, void *r, size_t count, ncclDataType_t t, ncclRedOp_t op,
                                  ncclComm_t comm, nccl_cudaStream_t st);
    ncclResult_t (*Broadcast)(const void *s, void *r, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                              nccl_cudaStream_t st);
    ncclResult_t (*Reduce)(const void *s, void *r, size_t count, ncclDataType_t t, ncclRedOp_t op, int root,
                           ncclComm_t comm, nccl_cudaStream_t st);
    ncclResult_t (*Send)(const void *s, size_t count, ncclDataType_t t, int peer, ncclComm_t comm,
                         nccl_cudaStream_t st);
    ncclResult_t (*Recv)(void *r, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, nccl_cudaStream_t st);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
} mgpu_nccl_api;

/* Load NCCL once (thread-safe); MGPU_ERR_UNSUPPORTED with dlerror's text
 * when the library or a symbol is missing. Also makes sure
 * NCCL_NVLS_ENABLE=0 is set before NCCL initialises. */
mgpu_result mgpu_nccl_load(const mgpu_nccl_api **out);
/* The API when already loaded, else NULL (never loads). */
const mgpu_nccl_api *mgpu_nccl_loaded(void);
/* NCCL_NVLS_ENABLE: set to 0 when unset; refuse any other value. */
mgpu_result mgpu_nccl_check_env(void);
/* A config filled as NCCL_CONFIG_INITIALIZER does, for the loaded library. */
void mgpu_nccl_config_init(const mgpu_nccl_api *api, ncclConfig_t *cfg);
/* Make `dev` the calling thread's current CUDA device (the driver's primary
 * context, as cudaSetDevice does), which ncclCommInitRankConfig reads. The
 * engine's cudart is linked statically, so this goes through libcuda.so.1. */
mgpu_result mgpu_nccl_set_device(int dev);
/* MGPU_ERR_NCCL with "what: NCCL error string (last error)". */
mgpu_result mgpu_nccl_fail(const mgpu_nccl_api *api, ncclComm_t comm, ncclResult_t r, const char *what);

#endif
