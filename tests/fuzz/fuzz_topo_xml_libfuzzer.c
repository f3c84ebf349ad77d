/* fuzz_topo_xml_libfuzzer.c - libFuzzer entry point for the topology XML
 * importer (built when the compiler is clang; see tests/fuzz/README.md). */
#include "fuzz_topo_xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mgpu_fuzz_topo_xml_one(data, size);
    return 0;
}
