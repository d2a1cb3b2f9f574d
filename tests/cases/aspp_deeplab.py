"""DeepLab-v3 ASPP head: parallel atrous convolutions with rates 6/12/18, an image-pooling
branch upsampled back with interpolate(size=...), concatenation and projection."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: ASPPHead(); inputs: feats=[B,256,H,W]
# verify: B=2,H=33,W=33; B=1,H=8,W=17; B=3,H=65,W=4


class ASPPHead(nn.Module):
    def __init__(self, in_ch=256, out_ch=64, num_classes=19):
        super().__init__()
        self.b0 = nn.Conv2d(in_ch, out_ch, 1)
        self.b1 = nn.Conv2d(in_ch, out_ch, 3, padding=6, dilation=6)
        self.b2 = nn.Conv2d(in_ch, out_ch, 3, padding=12, dilation=12)
        self.b3 = nn.Conv2d(in_ch, out_ch, 3, padding=18, dilation=18)
        self.pool_proj = nn.Conv2d(in_ch, out_ch, 1)
        self.project = nn.Conv2d(5 * out_ch, out_ch, 1)
        self.classifier = nn.Conv2d(out_ch, num_classes, 1)

    def forward(self, feats: Float[Tensor, "B 256 H W"]):
        H, W = feats.shape[-2:]
        r0 = self.b0(feats)  # expect: [B, 64, H, W]
        r1 = self.b1(feats)  # expect: [B, 64, H, W]
        r2 = self.b2(feats)  # expect: [B, 64, H, W]
        r3 = self.b3(feats)  # expect: [B, 64, H, W]
        pooled = F.adaptive_avg_pool2d(feats, (1, 1))  # expect: [B, 256, 1, 1]
        pooled = self.pool_proj(pooled)  # expect: [B, 64, 1, 1]
        pooled = F.interpolate(pooled, size=(H, W), mode="nearest")  # expect: [B, 64, H, W]
        cat = torch.cat([r0, r1, r2, r3, pooled], dim=1)  # expect: [B, 320, H, W]
        proj = F.relu(self.project(cat))  # expect: [B, 64, H, W]
        logits = self.classifier(proj)  # expect: [B, 19, H, W]
        full = F.interpolate(logits, scale_factor=4, mode="bilinear", align_corners=False)  # expect: [B, 19, 4*H, 4*W]
        coarse = F.interpolate(logits, size=(8, 8), mode="bilinear", align_corners=False)  # expect: [B, 19, 8, 8]
        return full, coarse
