-- uva.lua - UVA: one address space for every GPU and the host of a process
-- (the note: cudaPointerGetAttributes(ptr) says where an address lives).
if mgpu.rank ~= 0 then return end
local n = 1 << 16
local dev = mgpu.device
local peer = mgpu.device_count > 1 and (dev + 1) % mgpu.device_count or nil
local t = {
  device   = mgpu.tensor(n),
  pinned   = mgpu.tensor(n, "f32", "pinned"),
  pageable = mgpu.tensor(n, "f32", "pageable"),
}
if peer then t.peer = mgpu.tensor{count = n, device = peer} end
local out = {dev = dev, peer_dev = peer, can_access_peer = peer and mgpu.can_access_peer(dev, peer) or false}
for name, x in pairs(t) do
  local i = mgpu.pointer_info(x)
  out[name] = {kind = i.kind, device = i.device, device_ptr = i.device_ptr, host_ptr = i.host_ptr,
               address = i.address}
  mgpu.log(string.format("%-8s %s: kind %s, device %d, device_ptr %s, host_ptr %s", name, tostring(i.address),
                         tostring(i.kind), i.device or -99, tostring(i.device_ptr), tostring(i.host_ptr)))
end
-- the element offset moves the address by offset x element size
local i0, i1 = mgpu.pointer_info(t.device, 0), mgpu.pointer_info(t.device, 1000)
out.offset_bytes = tonumber(i1.address) and tonumber(i0.address) and (tonumber(i1.address) - tonumber(i0.address)) or nil
mgpu.result(out)
for _, x in pairs(t) do x:free() end
