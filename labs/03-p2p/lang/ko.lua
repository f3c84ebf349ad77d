-- labs/03-p2p/lang/ko.lua - the Korean of this lab's texts: the English
-- text exactly as lab.lua writes it -> its Korean, placeholders in the same
-- order (docs/lab-authoring.md, the language contract of issue 29).
return {

  -- lab
  ["P2P memcpy, streams, events"] = "P2P memcpy, stream, event",
  ["cudaMemcpyPeerAsync with peer access on/off, CE vs SM, bidirectional copies, events, UVA, CUDA IPC"] =
    "peer access on/off 의 cudaMemcpyPeerAsync, CE vs SM, 양방향 copy, event, UVA, CUDA IPC",
  ["cuda (2+ GPUs for peer copies; with 1 GPU: D2D and pinned vs pageable, IPC between 2 ranks on one GPU) and sim"] =
    "cuda (peer copy 에는 GPU 2 개 이상; GPU 1 개면 D2D 와 pinned vs pageable, GPU 하나 위 rank 2 개 사이의 IPC) 와 sim",
  ["%s did not finish on rank %d: %s"] = "%s 가 rank %d 에서 끝나지 않았다: %s",
  ["an error"] = "error",
  ["the script finishes"] = "script 가 끝까지 돈다",
  ["log pane (5)"] = "log pane (5)",
  ["results pane (3)"] = "results pane (3)",

  -- step 1: peer access on and off
  ["GPU0 -> GPU1: peer access on and off, CE vs SM"] = "GPU0 -> GPU1: peer access on/off, CE vs SM",
  ["Compare the two copy-engine numbers: the copy with peer access on and the same copy staged through host memory."] =
    "copy-engine 숫자 둘을 비교한다: peer access 를 켠 copy 와, host 메모리를 거쳐 가는 같은 copy.",
  ["speedup = (peer on, CE) / (peer off, CE); with one GPU: H2D pinned / H2D pageable."] =
    "speedup = (peer on, CE) / (peer off, CE); GPU 가 하나면: H2D pinned / H2D pageable.",
  ["If peer access is impossible here, the topology (lab 1, step 3) says why: SYS path or P2P disabled."] =
    "여기서 peer access 가 불가능하면 이유는 topology (lab 1, step 3) 에 있다: SYS path 이거나 P2P 가 꺼져 있다.",
  ["How many times faster is the fast copy than the slow one (work it out from the table)?"] =
    "빠른 copy 가 느린 copy 보다 몇 배 빠른가 (표에서 계산한다)?",
  ["GPU%d -> GPU%d, %d MiB (GB/s)"] = "GPU%d -> GPU%d, %d MiB (GB/s)",
  ["peer access"] = "peer access",
  ["copy engine (CE)"] = "copy engine (CE)",
  ["SM copy kernel"] = "SM copy kernel",
  ["refused"] = "거부됨",
  ["ran"] = "실행됨",
  ["impossible"] = "불가능",
  ["one GPU, %d MiB (GB/s)"] = "GPU 하나, %d MiB (GB/s)",
  ["copy"] = "copy",
  ["pinned host"] = "pinned host",
  ["pageable host"] = "pageable host",
  ["device -> device (local)"] = "device -> device (local)",
  ["your speedup pinned / pageable"] = "내 speedup (pinned / pageable)",
  ["results pane (3), row host -> device"] = "results pane (3), host -> device 행",
  ["H2D from pinned memory"] = "pinned 메모리에서의 H2D",
  ["H2D from pageable memory (one GPU: no peer to copy to)"] = "pageable 메모리에서의 H2D (GPU 하나: copy 할 peer 가 없다)",
  ["results pane (3), table 'one GPU'"] = "results pane (3), 'GPU 하나' 표",
  ["H2D from pinned memory is well ahead of pageable memory (how many times: your question speedup)"] =
    "pinned 메모리에서의 H2D 가 pageable 메모리보다 확실히 빠르다 (몇 배인지는 질문 speedup 에서)",
  ["H2D from pinned memory is not even 1.5x H2D from pageable memory"] =
    "pinned 메모리에서의 H2D 가 pageable 메모리에서의 H2D 의 1.5x 도 되지 않는다",
  ["pinned %s GB/s, pageable %s GB/s"] = "pinned %s GB/s, pageable %s GB/s",
  ["pinned >= 1.5x pageable"] = "pinned >= 1.5x pageable",
  ["GPU%d cannot access GPU%d's memory (cudaDeviceCanAccessPeer = 0): every copy is staged through host memory at %s GB/s. The topology says why: the path is SYS (across sockets) or P2P is disabled (ACS/IOMMU, --fault p2p-disabled) - the note's topology mismatch."] =
    "GPU%d 에서 GPU%d 의 메모리에 접근할 수 없다 (cudaDeviceCanAccessPeer = 0): 모든 copy 가 host 메모리를 거쳐 %s GB/s 로 간다. 이유는 topology 에 있다: path 가 SYS (socket 사이) 이거나 P2P 가 꺼져 있다 (ACS/IOMMU, --fault p2p-disabled) — 노트의 topology mismatch.",
  ["peer access impossible, %s GB/s staged"] = "peer access 불가능, host 경유 %s GB/s",
  ["peer access between GPU0 and GPU1"] = "GPU0 과 GPU1 사이의 peer access",
  ["lab 1, step 3: the peer-access matrix"] = "lab 1, step 3: peer-access matrix",
  ["your speedup on / off"] = "내 speedup (on / off)",
  ["results pane (3), column CE"] = "results pane (3), CE column",
  ["CE copy with peer access on"] = "peer access 를 켠 CE copy",
  ["the same copy with peer access off (staged through host memory)"] = "peer access 를 끈 같은 copy (host 메모리 경유)",
  ["CE copy with peer access on is well ahead of the copy staged through host memory (how many times: your question speedup)"] =
    "peer access 를 켠 CE copy 가 host 메모리를 거치는 copy 보다 확실히 빠르다 (몇 배인지는 질문 speedup 에서)",
  ["CE copy with peer access on is not even 2x the same copy staged through host memory"] =
    "peer access 를 켠 CE copy 가 host 메모리를 거치는 같은 copy 의 2x 도 되지 않는다",
  ["peer on %s GB/s, peer off %s GB/s"] = "peer on %s GB/s, peer off %s GB/s",
  ["peer on >= 2x peer off"] = "peer on >= 2x peer off",
  ["an SM copy kernel with peer access off is refused"] = "peer access 를 끄면 SM copy kernel 이 거부된다",
  ["results pane (3), column SM copy kernel"] = "results pane (3), SM copy kernel column",

  -- step 2: one direction or both
  ["One direction or both at once"] = "한 방향, 아니면 양방향 동시에",
  ["NVLink and PCIe are full duplex: each direction has its own lanes."] =
    "NVLink 와 PCIe 는 full duplex 다: 방향마다 자기 lane 이 있다.",
  ["The bidirectional testcase's Total matrix is the sum of both directions."] =
    "양방향 testcase 의 Total matrix 는 두 방향의 합이다.",
  ["GPU0 -> GPU1 alone"] = "GPU0 -> GPU1 만",
  ["GPU0 <-> GPU1 both directions (total)"] = "GPU0 <-> GPU1 양방향 (합계)",
  ["H2D alone"] = "H2D 만",
  ["H2D while D2H runs"] = "D2H 가 도는 동안의 H2D",
  ["uni- vs bidirectional (nvbandwidth testcases, GB/s)"] = "한 방향 vs 양방향 (nvbandwidth testcase, GB/s)",
  ["both directions at once (total)"] = "양방향 동시 (합계)",
  ["one direction alone: a full-duplex link carries both"] = "한 방향만: full-duplex link 는 양쪽을 다 나른다",
  ["H2D alone: PCIe is full duplex, the other direction should not halve it"] =
    "H2D 만: PCIe 는 full duplex 이므로 반대 방향이 이것을 반으로 깎으면 안 된다",

  -- step 3: events (the exercise stale.lua)
  ["Exercise: GPU1 waits on GPU0's event"] = "실습: GPU1 이 GPU0 의 event 를 기다린다",
  ["The copy reads x too early: something must make the `consume` stream wait until `produce` has finished the fills."] =
    "copy 가 x 를 너무 일찍 읽는다: `produce` 가 fill 을 끝낼 때까지 `consume` stream 을 기다리게 하는 무언가가 있어야 한다.",
  ["An event is a marker on one stream; another stream can wait for it. Record it on `produce` after the fills, wait for it on `consume` before the copy."] =
    "event 는 한 stream 위의 marker 다; 다른 stream 이 그것을 기다릴 수 있다. fill 뒤에 `produce` 에서 record 하고, copy 전에 `consume` 에서 기다린다.",
  ["Where each of the two calls goes matters: a record marks what its stream has queued so far, and a wait holds back only what its stream queues after it. (`mgpulab hint 3 --step events --solution` shows the reference, recorded as shown.)"] =
    "두 호출이 각각 어디에 들어가는지가 중요하다: record 는 그 stream 에 지금까지 queue 된 것을 표시하고, wait 는 그 stream 에서 자기 뒤에 queue 되는 것만 붙잡는다. (`mgpulab hint 3 --step events --solution` 이 reference 를 보여주고, 본 것으로 기록된다.)",
  ["value"] = "값",
  ["checksum GPU%s read"] = "GPU%s 에서 읽은 checksum",
  ["checksum of GPU%s's result"] = "GPU%s 결과의 checksum",
  ["copy started after the fills ended by"] = "fill 이 끝나고 copy 가 시작하기까지",
  ["(not measurable)"] = "(잴 수 없음)",
  ["%s - but %s"] = "%s — 그런데 %s",
  ["your stale.lua at the TODO; timeline pane (4): the produce and consume streams"] =
    "내 stale.lua 의 TODO 자리; timeline pane (4): produce 와 consume stream",
  ["checksum %s read by GPU%s"] = "checksum %s, GPU%s 에서 읽은 값",
  ["the checksum of GPU%s's finished x, %s"] = "GPU%s 의 완성된 x 의 checksum, %s",
  ["results pane (3), table stale.lua"] = "results pane (3), stale.lua 표",
  ["GPU%s's copy holds GPU%s's finished result"] = "GPU%s 의 copy 에 GPU%s 의 완성된 결과가 들어 있다",
  ["what GPU%s read after its copy is not GPU%s's finished result (the checksums differ): it was read before the data was there%s"] =
    "GPU%s 에서 copy 뒤에 읽은 것은 GPU%s 의 완성된 결과가 아니다 (checksum 이 다르다): 데이터가 도착하기 전에 읽었다%s",
  [" - the SIMULATED machine shows a read that races a write as NaN, as a GPU may show the old data"] =
    " — SIMULATED 머신은 write 와 race 하는 read 를 NaN 으로 보여준다, GPU 에서 옛 데이터가 보일 수 있듯이",
  ["the host blocks: %s at %s (%s) makes the CPU wait until GPU%s has finished before it even queues the copy - the data is right, but the host can queue nothing else meanwhile. The note's e0.wait() orders the streams on the device: record an event on %s after the fills and make %s wait for it"] =
    "host 가 막힌다: %s (%s, %s) 호출이 copy 를 queue 하기도 전에 CPU 를 GPU%s 의 일이 끝날 때까지 기다리게 한다 — 데이터는 맞지만 그동안 host 는 다른 일을 queue 하지 못한다. 노트의 e0.wait() 는 device 위에서 stream 의 순서를 정한다: fill 뒤에 %s stream 에 event 를 record 하고 %s stream 이 그것을 기다리게 한다",
  ["%s at %s between the fills and the copy"] = "fill 과 copy 사이의 %s (%s)",
  ["the copy ordered after the fills on the device (an event recorded, a stream waiting), no host synchronize in between"] =
    "device 위에서 fill 뒤로 순서가 정해진 copy (event 를 record 하고 stream 이 기다린다), 그 사이에 host synchronize 없음",
  ["your stale.lua, line %s"] = "내 stale.lua, line %s",
  [" (the timeline shows the copy starting %.3f ms before the fills ended)"] =
    " (timeline 에서 copy 가 fill 이 끝나기 %.3f ms 전에 시작한다)",
  ["the copy is not ordered after the fills: the race below names both lines"] =
    "copy 가 fill 뒤로 순서가 정해져 있지 않다: 아래 race 가 두 줄을 모두 가리킨다",
  ["the copy on %s not ordered after the fills on %s"] = "%s stream 의 copy 가 %s stream 의 fill 뒤로 순서가 정해져 있지 않다",
  ["an event recorded on %s after the fills, waited for by %s before the copy"] =
    "fill 뒤에 %s stream 에 record 되고, copy 전에 %s stream 이 기다리는 event",
  ["the data is right, but GPU1's stream never waits on an event: the exercise is the note's e0.record() on GPU0's stream and e0.wait() on GPU1's, with the copy on GPU1's stream"] =
    "데이터는 맞지만 GPU1 의 stream 이 event 를 전혀 기다리지 않는다: 이 exercise 는 노트의 e0.record() 를 GPU0 의 stream 에, e0.wait() 를 GPU1 의 stream 에 두고 copy 는 GPU1 의 stream 에서 하는 것이다",
  ["no stream waited on an event"] = "event 를 기다린 stream 이 없다",
  ["GPU1's stream waiting on an event recorded on GPU0's stream after the fills"] =
    "fill 뒤에 GPU0 의 stream 에 record 된 event 를 GPU1 의 stream 이 기다린다",
  ["the copy on GPU%s's stream is ordered after GPU%s's fills by an event, on the device: the host never waited"] =
    "GPU%s 의 stream 위의 copy 가 event 로 GPU%s 의 fill 뒤에 오도록 device 위에서 순서가 정해진다: host 는 한 번도 기다리지 않았다",
  ["a stream wait on an event, no race, no host synchronize in between"] =
    "event 에 대한 stream wait, race 없음, 그 사이 host synchronize 없음",
  ["device-side ordering"] = "device 쪽에서 정한 순서",

  -- ordering_fault: what the learner's stale.lua orders, read from its text
  ["the copy runs on %s, the stream of the fills (line %s), so no event orders anything: GPU1's stream, which reads y next, never waits on an event - copy on GPU1's stream and make it wait for an event of GPU0's"] =
    "copy 가 fill 과 같은 %s stream 에서 돈다 (line %s). 그러면 event 가 아무 순서도 정하지 못한다: 다음에 y 를 읽는 GPU1 의 stream 은 event 를 전혀 기다리지 않는다 — copy 를 GPU1 의 stream 에서 하고, 그 stream 이 GPU0 의 event 를 기다리게 한다",
  ["%s is recorded on %s (line %d), but %s never waits on an event: the note's e0.record() without e0.wait() orders nothing"] =
    "%s event 는 %s stream 에 record 되지만 (line %d), %s stream 은 event 를 전혀 기다리지 않는다: 노트의 e0.record() 만 있고 e0.wait() 가 없으면 아무 순서도 정해지지 않는다",
  ["no event orders the copy: %s never waits on an event recorded on %s after the fills"] =
    "copy 의 순서를 정하는 event 가 없다: %s stream 은 fill 뒤에 %s stream 에 record 된 event 를 전혀 기다리지 않는다",
  ["%s waits for %s (line %d), not %s: a stream that waits for its own marker orders nothing, and %s, the stream that copies, still starts at once"] =
    "기다리는 것은 %s stream 이다 (%s event, line %d), %s stream 이 아니라: 자기 marker 를 기다리는 stream 은 아무 순서도 정하지 못하고, copy 하는 %s stream 은 여전히 곧바로 시작한다",
  ["%s waits for %s at line %d, after the copy at line %d: a wait holds back only the work queued after it"] =
    "%s stream 이 %s event 를 line %d 에서, 즉 line %d 의 copy 뒤에서 기다린다: wait 는 자기 뒤에 queue 된 일만 붙잡는다",
  ["%s waits for %s (line %d), but nothing records %s on %s before that"] =
    "%s stream 이 %s event 를 기다리지만 (line %d), 그 전에 %s event 를 %s stream 에 record 하는 곳이 없다",
  ["%s is recorded on %s (line %d), not on %s: the marker must sit in the stream that does the writes, after them"] =
    "%s event 는 %s stream 에 record 된다 (line %d), %s stream 이 아니라: marker 는 write 를 하는 stream 에, write 뒤에 있어야 한다",
  ["%s is recorded on %s at line %d, before the fills (line %d): the marker stands in front of layer0's work, so waiting for it waits for nothing"] =
    "%s event 는 %s stream 에 line %d 에서, 즉 fill (line %d) 보다 먼저 record 된다: marker 가 layer0 의 일 앞에 서 있으므로 그것을 기다려도 아무것도 기다리지 않는 것이다",

  -- step 4: UVA
  ["UVA: where does a pointer live?"] = "UVA: pointer 는 어디에 있는가?",
  ["A kernel can use a pointer only if the address is mapped into the GPU's address space."] =
    "kernel 은 주소가 GPU 의 주소 공간에 map 되어 있을 때만 pointer 를 쓸 수 있다.",
  ["The results table's device_ptr column says, buffer by buffer, whether a GPU can use the pointer."] =
    "results 표의 device_ptr column 이 buffer 마다 GPU 가 그 pointer 를 쓸 수 있는지 알려준다.",
  ["Device and peer memory are GPU memory; pinned (page-locked) host memory is mapped for the GPU; pageable memory is not (HMM and ATS, in the step text, reach it without a mapping: the table counts mappings)."] =
    "device 와 peer 메모리는 GPU 메모리다; pinned (page-locked) host 메모리는 GPU 용으로 map 되어 있다; pageable 메모리는 아니다 (step 본문의 HMM 과 ATS 는 mapping 없이 거기에 닿는다: 표는 mapping 을 센다).",
  ["How many of the buffers in the table can a GPU kernel dereference directly?"] =
    "표의 buffer 중 몇 개를 GPU kernel 이 직접 dereference 할 수 있는가?",
  ["buffer"] = "buffer",
  ["address"] = "주소",
  ["kind of a device buffer"] = "device buffer 의 kind",
  ["device of a buffer on GPU%s"] = "GPU%s 위 buffer 의 device",
  ["kind of a pinned host buffer"] = "pinned host buffer 의 kind",
  ["kind of a pageable host buffer"] = "pageable host buffer 의 kind",
  ["address of element 1000 minus element 0 (f32)"] = "element 1000 의 주소 빼기 element 0 의 주소 (f32)",
  ["buffers a kernel can dereference"] = "kernel 이 dereference 할 수 있는 buffer 수",
  ["results pane (3), column device_ptr"] = "results pane (3), device_ptr column",
  ["results pane (3), row peer"] = "results pane (3), peer 행",

  -- step 5: CUDA IPC
  ["CUDA IPC between two processes, and the handle's lifetime"] = "두 process 사이의 CUDA IPC, 그리고 handle 의 수명",
  ["The order that works: importers ipc_close, barrier, then the exporter frees."] =
    "동작하는 순서: importer 가 ipc_close, barrier, 그다음 exporter 가 free.",
  ["The second table shows what the wrong order did on this backend."] = "두 번째 표가 틀린 순서가 이 backend 에서 무슨 일을 했는지 보여준다.",
  ["ipc.lua (close, barrier, free)"] = "ipc.lua (close, barrier, free)",
  ["rank 0 (owner)"] = "rank 0 (owner)",
  ["rank 1 (importer)"] = "rank 1 (importer)",
  ["checksum of the buffer"] = "buffer 의 checksum",
  ["after rank 1 wrote 7s into it"] = "rank 1 이 7 을 써 넣은 뒤",
  ["(closed)"] = "(닫힘)",
  ["checksum of 7s"] = "7 로 채운 buffer 의 checksum",
  ["ipc_open failed: %s"] = "ipc_open 실패: %s",
  ["reading failed: %s"] = "읽기 실패: %s",
  ["opened and read the OLD data after the free - no error at all"] = "free 뒤에 열어서 옛 (OLD) 데이터를 읽었다 — error 는 전혀 없었다",
  ["opened and read FOREIGN data after the free - no error at all"] =
    "free 뒤에 열어서 남의 (FOREIGN) 데이터를 읽었다 — error 는 전혀 없었다",
  ["ipc_stale.lua (free before the importer opened): %s"] = "ipc_stale.lua (importer 가 열기 전에 free): %s",
  ["ipc_stale.lua (freed too early)"] = "ipc_stale.lua (너무 일찍 free)",
  ["what rank 1 got"] = "rank 1 이 받은 것",
  ["checksum of rank 0's buffer, read by its owner and through the IPC mapping"] =
    "rank 0 의 buffer 의 checksum, owner 가 읽은 것과 IPC mapping 으로 읽은 것",
  ["rank 0 sees what rank 1 wrote through the handle"] = "rank 1 이 handle 로 쓴 것을 rank 0 이 본다",
  ["results pane (3), row 'after rank 1 wrote 7s'"] = "results pane (3), 'rank 1 이 7 을 써 넣은 뒤' 행",
  ["the SIMULATED machine catches the stale handle"] = "SIMULATED 머신이 stale handle 을 잡는다",
}
