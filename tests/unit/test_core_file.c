/* test_core_file.c - mgpu_file_relpath_inside, the one check that a name
 * from a lab (its step texts, its exercises) or from a learner's export
 * (the exercise file a class report re-runs) stays inside the folder it is
 * joined to: nothing that climbs out, nothing absolute. */
#include "mgpu/file.h"
#include "tap.h"

static void inside(const char *rel)
{
    CHECKF(mgpu_file_relpath_inside(rel), "'%s' was refused", rel);
}

static void outside(const char *rel)
{
    CHECKF(!mgpu_file_relpath_inside(rel), "'%s' was accepted", rel ? rel : "(null)");
}

int main(void)
{
    inside("reducer.lua");
    inside("steps/01-intro.md");
    inside("a/b/c.lua");
    inside("..hidden");     /* a name that starts with dots is still a name */
    inside("x..y/z.lua");
    inside(".config.lua");
    outside(NULL);
    outside("");
    outside("/etc/passwd");
    outside("..");
    outside("../x.lua");
    outside("steps/../../x.lua");
    outside("steps/..");
    outside(".");
    outside("./x.lua");
    outside("steps/./x.lua");
    outside("steps//x.lua"); /* an empty part */
    return tap_done();
}
