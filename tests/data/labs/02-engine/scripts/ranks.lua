-- ranks.lua - each rank reports itself
print("hello from " .. mgpu.rank)
mgpu.result{ rank = mgpu.rank, world = mgpu.world }
