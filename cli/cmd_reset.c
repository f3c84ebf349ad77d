/* cmd_reset.c - `mgpulab reset LAB`: exercises back to the originals (the
 * learner's copy kept as FILE.bak), the lab's progress forgotten. */
#include "cmd_lab.h"
#include <string.h>

static const char usage[] =
    "usage: mgpulab reset LAB\n"
    "\n"
    "Put the lab's exercise files in your workspace back to the unsolved originals (your\n"
    "copy is kept as FILE.bak beside it) and forget the lab's progress: states, times,\n"
    "answers and measurements. LAB is a number (2), an id (02-allreduce) or a name\n"
    "(allreduce).\n"
    "\n";

static const char epilog[] =
    "(none)\n"
    "\n"
    "Exit status: 0 when done, 1 when a file could not be written, 2 for an unknown lab.\n";

static const mgpu_opt options[] = {MGPU_OPT_END};

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    (void)g;
    mgpu_opt_args o;
    int orc = mgpu_opts_parse("reset", options, argc, argv, 0, &o);
    int nlabs = o.noperands;
    const char *name = nlabs ? o.operands[0] : NULL; /* a word of argv: outlives o */
    mgpu_opts_free(&o);
    if (orc) return orc;
    if (nlabs != 1) return mgpu_cli_usage_error("reset", nlabs == 0 ? "which lab? give LAB" : "give exactly one LAB");
    mgpu_lab_catalog *cat = lab_cli_open("reset");
    if (!cat) return 1;
    int lab = lab_cli_find("reset", cat, name);
    int rc = 2;
    if (lab >= 0) {
        const mgpu_lab_info *l = mgpu_lab_get(cat, lab);
        if (mgpu_lab_reset(cat, lab) != MGPU_OK) rc = mgpu_cli_error("reset");
        else {
            int files = 0;
            for (int i = 0; i < l->nsteps; i++) files += l->steps[i].exercise != NULL;
            printf("lab %s reset: %d exercise file%s restored (old copies kept as .bak), progress forgotten\n", l->id,
                   files, files == 1 ? "" : "s");
            rc = 0;
        }
    }
    mgpu_lab_catalog_close(cat);
    return rc;
}

const mgpu_cmd mgpu_cmd_reset = {
    .name = "reset",
    .summary = "put a lab's exercises back and forget its progress",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
