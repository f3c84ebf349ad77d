/* backend_registry.c - which device backends this build has. The one place
 * that knows whether CUDA was compiled in; everything else asks the table. */
#include "dev/backend.h"

#ifdef MGPU_HAVE_CUDA
extern const struct mgpu_dev_ops mgpu_dev_cuda_ops;
#endif

const struct mgpu_dev_ops *const mgpu_dev_backends[] = {
#ifdef MGPU_HAVE_CUDA
    &mgpu_dev_cuda_ops,
#endif
    &mgpu_dev_sim_ops,
    NULL,
};

int mgpu_build_has_cuda(void)
{
#ifdef MGPU_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

int mgpu_backend_config_is_sim(const mgpu_backend_config *cfg)
{
    if (cfg->kind == MGPU_BACKEND_SIM) return 1;
    if (cfg->kind != MGPU_BACKEND_AUTO) return 0;
    return cfg->machine || cfg->fault || !mgpu_build_has_cuda() || mgpu_driver_gpu_count() == 0;
}
