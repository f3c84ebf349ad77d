/* pacing.c - a class configuration's pacing (classcfg.h): each lab's
 * steps in order (rustlings-style: a step opens when the steps before it
 * are done), and labs after the first closed until the instructor opens
 * them (`mgpulab report --class DIR --open LAB` adds the lab to the shared
 * folder's open-labs.txt, which every learner's mgpulab reads). */
#include "lab/lab_internal.h"
#include "mgpu/classcfg.h"
#include "mgpu/file.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int mgpu_class_lab_opened(const char *share, const char *id)
{
    char path[PATH_MAX + 32], *text = NULL;
    snprintf(path, sizeof path, "%s/" MGPU_CLASS_OPEN_FILE, share);
    if (mgpu_file_read(path, (size_t)1 << 20, &text, NULL) != MGPU_OK) {
        mgpu_error_clear();
        return 0;
    }
    int hit = 0;
    for (char *line = text, *next; line && *line && !hit; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        line[strcspn(line, "\r")] = '\0';
        hit = strcmp(line, id) == 0;
    }
    free(text);
    return hit;
}

int mgpu_lab_step_locked(const mgpu_lab_catalog *cat, int lab, int step, char *why, size_t len)
{
    const mgpu_class_config *c = NULL;
    if (why && len) why[0] = '\0';
    if (mgpu_class_config_active(&c) != MGPU_OK) mgpu_error_clear();
    if (!c || !cat || lab < 0 || lab >= cat->nlabs) return 0;
    const lab_entry *e = &cat->labs[lab];
    if (c->labs_by_instructor && lab > 0 && !mgpu_class_lab_opened(c->share, e->info.id)) {
        if (why) snprintf(why, len, lab_tr("lab %s is not open yet: the class opens it when the instructor says so"),
                          e->info.id);
        return 1;
    }
    if (!c->steps_in_order) return 0;
    for (int k = 0; k < step && k < e->info.nsteps; k++) {
        const mgpu_lab_step_info *s = &e->steps[k];
        if (s->state == MGPU_STEP_PASSED || s->state == MGPU_STEP_READ) continue;
        if (why)
            snprintf(why, len, lab_tr("step %d (%s) opens when step %d (%s) is done: the class takes each lab's steps in order"),
                     step + 1, e->steps[step].id, k + 1, s->id);
        return 1;
    }
    return 0;
}
