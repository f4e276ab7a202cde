#!/usr/bin/env python3
"""A GPU job with a deliberately slow CPU-side producer, for `gpuvet watch` on a real GPU
(scripts/gpu-check.sh). Each step the main thread "prepares" a batch with ~200 ms of pure-Python
work (as a data loader running in the main process would), copies 256 MiB host-to-device from
pinned memory, and runs a few large fp16 matmuls. The GPU waits for the CPU most of the time:
watch should name the main thread (LAUNCH_BOUND). Usage: gpu-slow-producer.py [SECONDS [PRODUCER]]:
run SECONDS (20), PRODUCER seconds of CPU work per step (0.2; 0 gives a GPU-bound job).
Exits 0 with a message where torch or a CUDA GPU is missing."""
import sys
import time

try:
    import torch
except ImportError:
    print("gpu-slow-producer: torch is not importable here: nothing to run")
    sys.exit(0)
if not torch.cuda.is_available():
    print("gpu-slow-producer: torch sees no CUDA GPU: nothing to run")
    sys.exit(0)

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
producer = float(sys.argv[2]) if len(sys.argv) > 2 else 0.2
device = torch.device("cuda")
a = torch.randn(8192, 8192, device=device, dtype=torch.float16)
b = torch.randn(8192, 8192, device=device, dtype=torch.float16)
host = torch.empty(64 << 20, dtype=torch.float32).pin_memory()  # 256 MiB
end = time.time() + seconds
steps = 0
while time.time() < end:
    started = time.time()
    x = 0
    while time.time() - started < producer:  # the slow producer
        x += sum(range(1000))
    batch = host.to(device, non_blocking=True)
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
    steps += 1
print(f"gpu-slow-producer: {steps} steps in {seconds:.0f} s on {torch.cuda.get_device_name(0)}")
