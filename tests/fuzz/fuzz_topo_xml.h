/* fuzz_topo_xml.h - the one-input check shared by the libFuzzer target and
 * the standalone mutation driver. */
#ifndef MGPU_FUZZ_TOPO_XML_H
#define MGPU_FUZZ_TOPO_XML_H
#include <stddef.h>
#include <stdint.h>

/* Returns 1 when the input loaded, 0 when it was refused properly; aborts
 * on anything else. */
int mgpu_fuzz_topo_xml_one(const uint8_t *data, size_t size);

#endif
