/* link_load.c - the sim's modelled link load goes to whoever shows it
 * (mgpu/dev.h): a hook, so dev/ and comm/ report without calling up into
 * trace/'s telemetry table. */
#include "mgpu/dev.h"

/* Set once at a process's start, before any thread runs. */
static mgpu_link_load_fn hook;

void mgpu_link_load_set_hook(mgpu_link_load_fn fn)
{
    hook = fn;
}

void mgpu_link_load(int gpu, mgpu_link_kind kind, double tx_bps, double rx_bps, double seconds)
{
    if (hook) hook(gpu, kind, tx_bps, rx_bps, seconds);
}
