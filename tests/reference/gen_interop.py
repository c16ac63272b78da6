#!/usr/bin/python3
"""Writes the PyTorch-interop fixtures (tests/fixtures/interop) that
tests/test_interop.c checks, with PyTorch 1.13 and examples/torch_interop/export.py:

    /usr/bin/python3 tests/reference/gen_interop.py

mlp.safetensors      a 196-32-10 MLP, nn.Sequential(Linear, ReLU, Linear), trained
                     30 steps (SGD, momentum 0.9) on a seeded synthetic task
mlp_x.npy            a batch of 16 inputs (float32 [16, 196])
mlp_logits.npy       PyTorch's logits for them (float32 [16, 10])
mixed.safetensors    a module with float64 parameters (lin: Linear(3, 2).double())
                     and a BatchNorm1d(2) after two training-mode batches: float32
                     running stats and the int64 num_batches_tracked
error_<case>.txt     PyTorch's load_state_dict messages for mlp.safetensors loaded
                     into mismatched models (strict), "torch.Size([a, b])" written
                     as "[a, b]" as ctensor prints shapes
cnn.safetensors      a small CNN like examples/fashion_mnist.c's, nn.Sequential(
                     Conv2d(1, 8, 3, padding=1), BatchNorm2d(8), ReLU, MaxPool2d(2),
                     Conv2d(8, 16, 3, padding=1), BatchNorm2d(16), ReLU, MaxPool2d(2),
                     Flatten, Linear(784, 10)), trained 20 steps (SGD, momentum 0.9,
                     batch 32) on a seeded synthetic task: BatchNorm's running stats
                     are non-trivial and num_batches_tracked is 20
cnn_x.npy            a batch of 4 inputs (float32 [4, 1, 28, 28])
cnn_logits.npy       PyTorch's eval-mode logits for them (float32 [4, 10])
cnn_train_logits.npy PyTorch's train-mode logits for cnn_x.npy (batch statistics),
                     the forward starting from cnn.safetensors' state
cnn_train_buffers.safetensors  the BatchNorm buffers after that train-mode forward
                     (running stats updated, num_batches_tracked 21)
named.safetensors    nn.Sequential(OrderedDict(...)) with torchvision-style names
                     (features.conv1, features.bn1, ..., heads.head): keys such as
                     "heads.head.weight"; a grouped bias-free conv; BatchNorm stats
                     moved by two training-mode batches
named_x.npy          a batch of 4 inputs (float32 [4, 3, 16, 16])
named_logits.npy     PyTorch's eval-mode logits for them (float32 [4, 5])
named_repr.txt       print(model)

The script reseeds before each part, so running it again rewrites the same bytes."""
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "fixtures", "interop")
sys.path.insert(0, os.path.join(ROOT, "examples", "torch_interop"))
import export  # noqa: E402


def mlp_task():
    torch.manual_seed(0)
    model = export.mlp([196, 32, 10])
    teacher = torch.randn(196, 10)
    x = torch.randn(512, 196)
    y = (x @ teacher).argmax(1)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(30):
        idx = torch.arange(step * 64, step * 64 + 64) % 512
        loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"mlp: final training loss {loss.item():.4f}")
    return model


def cnn():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(16 * 7 * 7, 10))


def cnn_task():
    torch.manual_seed(3)
    model = cnn()
    teacher = torch.randn(784, 10)
    x = torch.randn(640, 1, 28, 28) * 0.8 + 0.3   # not centred: the running means move
    y = (x.flatten(1) @ teacher).argmax(1)
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    model.train()
    for step in range(20):
        idx = torch.arange(step * 32, step * 32 + 32)
        loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"cnn: final training loss {loss.item():.4f}")
    return model


def write_cnn():
    model = cnn_task()
    export.save_model(model, os.path.join(OUT, "cnn.safetensors"))
    torch.manual_seed(4)
    xb = torch.randn(4, 1, 28, 28) * 0.8 + 0.3
    model.eval()
    with torch.no_grad():
        logits = model(xb)
    np.save(os.path.join(OUT, "cnn_x.npy"), xb.numpy())
    np.save(os.path.join(OUT, "cnn_logits.npy"), logits.numpy())
    model.train()
    with torch.no_grad():
        train_logits = model(xb)
    np.save(os.path.join(OUT, "cnn_train_logits.npy"), train_logits.numpy())
    buffers = {k: v for k, v in model.state_dict().items() if "running_" in k or "num_batches" in k}
    export.save_file(buffers, os.path.join(OUT, "cnn_train_buffers.safetensors"))


def named():
    from collections import OrderedDict
    nn = torch.nn
    return nn.Sequential(OrderedDict([
        ("features", nn.Sequential(OrderedDict([
            ("conv1", nn.Conv2d(3, 8, 3, 2, 1, bias=False)),
            ("bn1", nn.BatchNorm2d(8)),
            ("relu", nn.ReLU()),
            ("conv2", nn.Conv2d(8, 8, 3, 1, 1, 1, 2, False)),
            ("pool", nn.AdaptiveAvgPool2d(1)),
            ("flatten", nn.Flatten())]))),
        ("heads", nn.Sequential(OrderedDict([("head", nn.Linear(8, 5))])))]))


def write_named():
    torch.manual_seed(5)
    model = named()
    with torch.no_grad():
        model.train()
        for _ in range(2):
            model(torch.randn(8, 3, 16, 16) * 2 + 0.5)
        model.features.bn1.weight.uniform_(0.5, 1.5)
        model.features.bn1.bias.uniform_(-0.5, 0.5)
    export.save_model(model, os.path.join(OUT, "named.safetensors"))
    x = torch.randn(4, 3, 16, 16)
    model.eval()
    with torch.no_grad():
        logits = model(x)
    np.save(os.path.join(OUT, "named_x.npy"), x.numpy())
    np.save(os.path.join(OUT, "named_logits.npy"), logits.numpy())
    with open(os.path.join(OUT, "named_repr.txt"), "w") as f:
        f.write(repr(model))


class Mixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2).double()
        self.bn = torch.nn.BatchNorm1d(2)


def main():
    os.makedirs(OUT, exist_ok=True)
    model = mlp_task()
    export.save_model(model, os.path.join(OUT, "mlp.safetensors"))
    torch.manual_seed(1)
    xb = torch.randn(16, 196)
    with torch.no_grad():
        logits = model(xb)
    np.save(os.path.join(OUT, "mlp_x.npy"), xb.numpy())
    np.save(os.path.join(OUT, "mlp_logits.npy"), logits.numpy())

    torch.manual_seed(2)
    mixed = Mixed()
    with torch.no_grad():
        for _ in range(2):
            mixed.bn(torch.randn(8, 2) * 3 + 1)
        mixed.bn.weight.uniform_()
        mixed.bn.bias.uniform_()
    export.save_model(mixed, os.path.join(OUT, "mixed.safetensors"))

    # as safetensors.torch.load_model(model, file) does it: load_file's dict is in
    # sorted-name order (safe_open.keys() sorts), so unexpected keys are listed sorted
    sd = dict(sorted(model.state_dict().items()))
    errors = {}
    cases = {
        "missing": export.mlp([196, 32, 10, 10]),      # 4.weight, 4.bias absent from the file
        "unexpected": export.mlp([196, 32]),           # 2.weight, 2.bias extra in the file
        "size": export.mlp([196, 16, 10]),             # 0.*, 2.weight shapes differ
    }
    for name, m in cases.items():
        try:
            m.load_state_dict(sd, strict=True)
            raise SystemExit(f"{name}: no error")
        except RuntimeError as e:
            msg = str(e)
            while "torch.Size(" in msg:
                i = msg.index("torch.Size(")
                j = msg.index(")", i)
                msg = msg[:i] + msg[i + len("torch.Size("):j] + msg[j + 1:]
            errors[name] = msg
    for name, msg in errors.items():
        with open(os.path.join(OUT, f"error_{name}.txt"), "w") as f:
            f.write(msg)
    write_cnn()
    write_named()
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {OUT} ({total} bytes)")


if __name__ == "__main__":
    main()
