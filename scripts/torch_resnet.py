"""torch_resnet.py - the torch twin of labs/lib/nn/resnet.lua, for the
side-by-side scripts (compare-nn-torch.py, compare-ddp-torch.py): conv-BN-
ReLU basic blocks, 1x1 downsampling, no conv bias, depth 6n+2, width 16.
Imported only where torch is installed (the GPU machine)."""
import torch
import torch.nn as tnn


class Block(tnn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = tnn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = tnn.BatchNorm2d(cout)
        self.c2 = tnn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = tnn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = tnn.Sequential(tnn.Conv2d(cin, cout, 1, stride, 0, bias=False), tnn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.b2(self.c2(torch.relu(self.b1(self.c1(x)))))
        return torch.relu(y + (self.down(x) if self.down is not None else x))


def resnet(depth, classes=10):
    """ResNet-depth for 32x32 images (CIFAR family), width 16."""
    n = (depth - 2) // 6
    mods, cin = [tnn.Conv2d(3, 16, 3, 1, 1, bias=False), tnn.BatchNorm2d(16), tnn.ReLU()], 16
    for stage in range(3):
        cout = 16 << stage
        for i in range(n):
            mods.append(Block(cin, cout, 2 if stage > 0 and i == 0 else 1))
            cin = cout
    mods += [tnn.AdaptiveAvgPool2d(1), tnn.Flatten(), tnn.Linear(cin, classes)]
    return tnn.Sequential(*mods)
