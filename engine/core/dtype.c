/* dtype.c - dtype names. The numeric formulas are inline in dtype.h. */
#include "mgpu/dtype.h"
#include <string.h>

static const char *const dtype_names[MGPU_DTYPE_COUNT] = {"f32", "f16", "bf16", "i32"};

const char *mgpu_dtype_name(mgpu_dtype t)
{
    return (unsigned)t < MGPU_DTYPE_COUNT ? dtype_names[t] : "?";
}

int mgpu_dtype_parse(const char *name)
{
    static const struct { const char *alias; mgpu_dtype t; } aliases[] = {
        {"f32", MGPU_F32}, {"float", MGPU_F32}, {"float32", MGPU_F32},
        {"f16", MGPU_F16}, {"half", MGPU_F16}, {"float16", MGPU_F16},
        {"bf16", MGPU_BF16}, {"bfloat16", MGPU_BF16},
        {"i32", MGPU_I32}, {"int", MGPU_I32}, {"int32", MGPU_I32},
    };
    if (!name) return -1;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0) return (int)aliases[i].t;
    return -1;
}
