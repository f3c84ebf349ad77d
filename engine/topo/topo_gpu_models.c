/* topo_gpu_models.c - facts about GPU models the topology cannot carry
 * (name, SMs, memory, HBM and NVLink bandwidth), by PCI device id or name.
 * Sources: NVIDIA's data sheets; memory sizes as nvidia-smi reports them.
 * See docs/topology-model.md. */
#include "topo/topo_internal.h"
#include <ctype.h>
#include <string.h>

#define MIB(x) ((uint64_t)(x) << 20)

static const mgpu_gpu_model models[] = {
    /* pci     name                        sm  SMs  memory        HBM GB/s  NVLink GB/s/dir/link, links, PCIe gen, width,
     * dense bf16 and f32 TFLOP/s (data sheets: H100 SXM 989/67, H100 PCIe 756/51, A100 312/19.5, L40S 362/91.6) */
    {0x2330, "NVIDIA H100 80GB HBM3", 90, 132, MIB(81559), 3350.0, 25.0, 18, 5, 16, 989.0, 67.0},
    {0x2335, "NVIDIA H200", 90, 132, MIB(143771), 4800.0, 25.0, 18, 5, 16, 989.0, 67.0},
    {0x2331, "NVIDIA H100 PCIe", 90, 114, MIB(81559), 2000.0, 25.0, 12, 5, 16, 756.0, 51.0}, /* NVLink bridge */
    {0x20b2, "NVIDIA A100-SXM4-80GB", 80, 108, MIB(81920), 2039.0, 25.0, 12, 4, 16, 312.0, 19.5},
    {0x20b0, "NVIDIA A100-SXM4-40GB", 80, 108, MIB(40960), 1555.0, 25.0, 12, 4, 16, 312.0, 19.5},
    {0x26b9, "NVIDIA L40S", 89, 142, MIB(46068), 864.0, 0.0, 0, 4, 16, 362.0, 91.6},
};

/* Other spellings users and tools write (the CUDA device name is canonical). */
static const struct { const char *alias; unsigned pci; } aliases[] = {
    {"H100", 0x2330},        {"H100 SXM", 0x2330},   {"H100 SXM5", 0x2330},
    {"NVIDIA H100", 0x2330}, {"H200", 0x2335},       {"NVIDIA H200 141GB HBM3e", 0x2335},
    {"H200 SXM", 0x2335},    {"H100 PCIe", 0x2331},  {"A100", 0x20b2},
    {"A100 SXM4", 0x20b2},   {"A100-SXM4-80GB", 0x20b2}, {"A100-SXM4-40GB", 0x20b0},
    {"L40S", 0x26b9},
};

const mgpu_gpu_model *mgpu_gpu_model_by_pci(unsigned pci_device)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (models[i].pci_device == pci_device) return &models[i];
    return NULL;
}

static int same_name(const char *a, const char *b)
{
    /* Case and runs of blanks do not matter: "nvidia  h200" is "NVIDIA H200". */
    for (;;) {
        while (*a == ' ' && a[1] == ' ') a++;
        while (*b == ' ' && b[1] == ' ') b++;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
        if (!*a) return 1;
        a++, b++;
    }
}

const mgpu_gpu_model *mgpu_gpu_model_by_name(const char *name)
{
    if (!name) return NULL;
    while (*name == ' ') name++;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (same_name(models[i].name, name)) return &models[i];
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (same_name(aliases[i].alias, name)) return mgpu_gpu_model_by_pci(aliases[i].pci);
    return NULL;
}

double topo_nvlink_gbs_for_sm(int sm)
{
    /* Per link per direction: NVLink1 (P100) 20, NVLink2 (V100) 25,
     * NVLink3 (A100) 25, NVLink4 (H100) 25, NVLink5 (B200) 50 GB/s. */
    if (sm >= 100) return 50.0;
    if (sm >= 70) return 25.0;
    if (sm >= 60) return 20.0;
    return 0.0;
}
