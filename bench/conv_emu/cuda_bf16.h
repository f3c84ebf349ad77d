/* cuda_bf16.h for bench/conv_emu: the type only. */
#pragma once
#include <cstdint>
struct __nv_bfloat16 { uint16_t x; };
