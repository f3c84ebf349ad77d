/* sim_conv_price.h - conv2d's price in the sim's timing model
 * (sim_conv_price.c), for sim_model.c's compute prices. */
#ifndef MGPU_SIM_CONV_PRICE_H
#define MGPU_SIM_CONV_PRICE_H
#include "dev/sim/sim_model.h"

/* The SM time (ns, no kernel floor) of one of conv2d's GEMMs on g: w is
 * MGPU_NN_CLASS_CONV work with its output's rows and columns (w->m, w->n);
 * hbm_eff the conv class's achieved share of HBM, which a combine of
 * many outputs runs at. MGPU_SIM_CONV_FIT="name=value,..." replaces the
 * fitted coefficients (scripts/fit-conv-sim.py). */
double sim_conv_ns(const sim_model_gpu *g, const mgpu_nn_work *w, int bf16, double hbm_eff);

#endif
