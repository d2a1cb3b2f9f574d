#!/usr/bin/env bash
# Device run on a CUDA GPU (needs a machine with one, shapehint's dependencies and a CUDA build of
# torch): the built-in examples and torchvision's resnet18 run with --device cuda, each run's
# agreement printed, then the device-run tests. Not part of CI (CI has no GPU).
set -u
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/server${PYTHONPATH:+:$PYTHONPATH}"
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'no CUDA device: nothing to check')" || exit 2
summary() {
  python3 -c "
import json, sys
d = json.load(sys.stdin)
print(sys.argv[1], d.get('device_name'), 'torch', d.get('torch'), 'error:', (d.get('error') or {}).get('message'), d.get('summary'))" "$1"
}
for f in shared/examples/{resnet,unet,vit,gpt,lstm_tagger}.py; do
  python3 -m shapehint.cli run "$f" --device cuda --format json 2>/dev/null | summary "$f"
done
if TV=$(python3 -c "import torchvision, os; print(os.path.dirname(torchvision.__file__))" 2>/dev/null); then
  python3 -m shapehint.cli run "$TV/models/resnet.py" --entry ResNet --build 'resnet18(num_classes=10)' \
    --device cuda --format json 2>/dev/null | summary torchvision-resnet18
fi
workers=$(python3 -c "import xdist" 2>/dev/null && echo "-n auto")  # (pytest-xdist when installed)
python3 -m pytest -q -p no:cacheprovider $workers tests/devicerun
