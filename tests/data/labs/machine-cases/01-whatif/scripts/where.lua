-- where.lua - each rank reports the machine it sees: backend, devices, its
-- device and that device's memory
local _, total = mgpu.mem_info()
mgpu.result{ rank = mgpu.rank, world = mgpu.world, simulated = mgpu.simulated, device = mgpu.device,
             device_count = mgpu.device_count, mem = total }
