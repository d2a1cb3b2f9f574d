"""ResNet's `_make_layer` with a block count the code does not fix: the first block widens
64 -> 256 channels and the blocks appended in the loop keep 256. A Sequential of that list may
not be taken for one of the appended blocks repeated (that would make the 64-channel input a
false error); the stem before it keeps its shape."""
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

# entry: Net(3); inputs: x=[B,3,H,W]
# verify: B=2,H=16,W=16


class Block(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 1)

    def forward(self, x):
        return torch.relu(self.conv(x))


class Net(nn.Module):
    def __init__(self, blocks: int):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 3, padding=1)
        self.bn = nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.first = nn.Sequential(*[Block(64, 64) for _ in range(2)])
        layers = [Block(64, 256)]
        for _ in range(1, blocks):
            layers.append(Block(256, 256))
        self.stage = nn.Sequential(*layers)

    def forward(self, x: Float[Tensor, "B 3 H W"]):
        h = self.stem(x)  # expect: [B, 64, H, W]
        h = torch.relu(self.bn(h))  # expect: [B, 64, H, W]
        h = self.pool(h)  # expect: [B, 64, (H - 1)//2 + 1, (W - 1)//2 + 1]
        h = self.first(h)  # expect: [B, 64, (H - 1)//2 + 1, (W - 1)//2 + 1]
        ctx = h.mean(dim=(2, 3), keepdim=True)  # expect: [B, 64, 1, 1]
        h = h * torch.sigmoid(ctx)  # expect: [B, 64, (H - 1)//2 + 1, (W - 1)//2 + 1]
        flat = h.flatten(2)  # expect: [B, 64, ((H - 1)//2 + 1) * ((W - 1)//2 + 1)]
        attn = torch.softmax(flat, dim=-1)  # expect: [B, 64, ((H - 1)//2 + 1) * ((W - 1)//2 + 1)]
        h = (attn.view_as(h) + 1) * h  # expect: [B, 64, (H - 1)//2 + 1, (W - 1)//2 + 1]
        return self.stage(h)
