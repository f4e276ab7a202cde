#!/usr/bin/env python3
"""A real CV training loop for checking `gpuvet plan`'s balance model on a GPU machine
(scripts/gpu-check.sh): JPEG decode + RandomResizedCrop 224 + flip + normalize in DataLoader
workers (torchvision's ImageNet reference transforms), pinned copy to the GPU, and ResNet-50
forward + backward + SGD step with AMP, batch 256. Each mode prints one line
"RESULT <mode> <images/s>".

  gpu-balance-loop.py make-images DIR COUNT   COUNT 500x375 JPEGs (quality 90) in DIR, made from
                                              smooth random fields; kept when DIR has JPEGs already
  gpu-balance-loop.py gpu-only SECONDS        ResNet-50 steps on a batch already on the GPU
  gpu-balance-loop.py loader-only DIR SECONDS WORKERS   the workers' decode rate, no GPU
  gpu-balance-loop.py pipeline DIR SECONDS WORKERS      the whole loop

Exits 0 with a message where torch, torchvision, Pillow or a CUDA GPU is missing."""
import os
import sys
import time

try:
    import torch
    import torchvision
    from PIL import Image
    from torchvision import transforms
except ImportError as e:
    print(f"gpu-balance-loop: {e.name} is not importable here: nothing to run")
    sys.exit(0)

BATCH = 256


def make_images(folder, count):
    os.makedirs(folder, exist_ok=True)
    if any(name.endswith(".jpg") for name in os.listdir(folder)):
        return
    g = torch.Generator().manual_seed(15)
    for i in range(count):
        # low-frequency colour fields upsampled, plus mild noise: compresses like a photograph
        # (tens of kB at quality 90), unlike pure noise
        coarse = torch.rand(1, 3, 12, 16, generator=g)
        field = torch.nn.functional.interpolate(coarse, size=(375, 500), mode="bicubic", align_corners=False)[0]
        field = (field + 0.04 * torch.randn(field.shape, generator=g)).clamp(0, 1)
        rgb = (field.permute(1, 2, 0) * 255).to(torch.uint8).contiguous()
        Image.frombytes("RGB", (500, 375), bytes(rgb.flatten().tolist())).save(
            os.path.join(folder, f"img{i:04d}.jpg"), quality=90)


class Jpegs(torch.utils.data.Dataset):
    """The folder's JPEGs, repeated: the loop reads them from the page cache, as an epoch after the
    first does when the dataset fits in host memory."""

    def __init__(self, folder):
        self.files = sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".jpg"))
        self.transform = transforms.Compose([
            transforms.RandomResizedCrop(224),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ])

    def __len__(self):
        return 10 ** 8

    def __getitem__(self, i):
        with Image.open(self.files[i % len(self.files)]) as im:
            return self.transform(im.convert("RGB")), 0


def loader(folder, workers, pin):
    return torch.utils.data.DataLoader(Jpegs(folder), batch_size=BATCH, num_workers=workers, pin_memory=pin,
                                       persistent_workers=True, prefetch_factor=4, shuffle=False)


def model_step():
    device = torch.device("cuda")
    model = torchvision.models.resnet50().to(device).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = torch.cuda.amp.GradScaler()
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x, y):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = loss_fn(model(x.to(memory_format=torch.channels_last)), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    return step


def timed(batches, seconds, warmup=5):
    """Images/s over `seconds` after `warmup` batches (worker start-up and cuDNN autotuning)."""
    it = iter(batches)
    for _ in range(warmup):
        next(it)
    torch.cuda.synchronize() if torch.cuda.is_available() else None
    start, images = time.time(), 0
    while time.time() - start < seconds:
        images += next(it)
    torch.cuda.synchronize() if torch.cuda.is_available() else None
    return images / (time.time() - start)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "make-images":
        make_images(sys.argv[2], int(sys.argv[3]))
        print(f"RESULT make-images {len([n for n in os.listdir(sys.argv[2]) if n.endswith('.jpg')])}")
        return
    if mode == "loader-only":
        folder, seconds, workers = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
        batches = (len(x) for x, _ in loader(folder, workers, pin=False))
        print(f"RESULT loader-only {timed(batches, seconds):.1f}")
        return
    if not torch.cuda.is_available():
        print("gpu-balance-loop: torch sees no CUDA GPU: nothing to run")
        return
    torch.backends.cudnn.benchmark = True
    step = model_step()
    if mode == "gpu-only":
        x = torch.randn(BATCH, 3, 224, 224, device="cuda")
        y = torch.zeros(BATCH, dtype=torch.long, device="cuda")

        def resident():
            while True:
                step(x, y)
                yield BATCH
        print(f"RESULT gpu-only {timed(resident(), float(sys.argv[2])):.1f}")
    elif mode == "pipeline":
        folder, seconds, workers = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])

        def fed():
            for x, y in loader(folder, workers, pin=True):
                step(x.cuda(non_blocking=True), y.cuda(non_blocking=True))
                yield len(x)
        print(f"RESULT pipeline {timed(fed(), seconds):.1f}")
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
