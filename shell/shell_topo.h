/* shell_topo.h - the topology query at start-up (shell_topo.c). */
#ifndef MGPU_SHELL_SHELL_TOPO_H
#define MGPU_SHELL_SHELL_TOPO_H
#include "app.h"

void topo_probe_start(shell_app *a);
void topo_probe_join(shell_app *a);

#endif
