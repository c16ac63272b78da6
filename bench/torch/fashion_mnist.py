"""PyTorch twin of examples/fashion_mnist.c: the same MLP and CNN, the same
data normalization and hyperparameters (batch 64, SGD lr 0.01 momentum 0.9),
timed per epoch, with test accuracy after each epoch.

    /usr/bin/python3 bench/torch/fashion_mnist.py --model both --epochs 5 --threads 1

Prints one line per epoch and a final table in the format the C example
prints, so the two runs read side by side (bench/RESULTS.md records both).
"""
import argparse
import gzip
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN, STD = 0.2860, 0.3530


def load_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def images(path, cnn):
    x = torch.from_numpy(load_idx(path).astype(np.float32) / 255.0)
    x = (x - MEAN) / STD
    return x.reshape(-1, 1, 28, 28) if cnn else x.reshape(-1, 784)


def labels(path):
    return torch.from_numpy(load_idx(path).astype(np.int64))


def mlp():
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))


def cnn():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(32, 64, 3, 1, 1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10))


def evaluate(model, x, y):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), 1000):
            correct += (model(x[i:i + 1000]).argmax(1) == y[i:i + 1000]).sum().item()
    model.train()
    return 100.0 * correct / len(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="both", choices=["mlp", "cnn", "both"])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--limit", type=int, default=0, help="train on the first N batches of each epoch")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    print(f"Fashion-MNIST (PyTorch {torch.__version__}): {a.model}, {a.epochs} epoch(s), batch 64, "
          f"SGD lr 0.01 momentum 0.9, {torch.get_num_threads()} thread(s)")
    rows = []
    for kind in ["mlp", "cnn"]:
        if a.model not in (kind, "both"):
            continue
        is_cnn = kind == "cnn"
        torch.manual_seed(a.seed)
        xtr = images(f"{a.data}/train-images-idx3-ubyte.gz", is_cnn)
        ytr = labels(f"{a.data}/train-labels-idx1-ubyte.gz")
        xte = images(f"{a.data}/t10k-images-idx3-ubyte.gz", is_cnn)
        yte = labels(f"{a.data}/t10k-labels-idx1-ubyte.gz")
        model = cnn() if is_cnn else mlp()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xtr, ytr), batch_size=64, shuffle=True)
        model.train()
        for e in range(a.epochs):
            t0 = time.perf_counter()
            total, steps = 0.0, 0
            for xb, yb in loader:
                if a.limit and steps >= a.limit:
                    break
                loss = F.cross_entropy(model(xb), yb)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                total += loss.item()
                steps += 1
            secs = time.perf_counter() - t0
            acc = evaluate(model, xte, yte)
            print(f"{kind} epoch {e + 1}/{a.epochs}: train loss {total / max(steps, 1):.4f}, "
                  f"test accuracy {acc:.2f}%, {secs:.1f} s", flush=True)
            rows.append((kind, e + 1, acc, secs))
    print(f"\n{'model':<5} {'epoch':>6} {'accuracy':>10} {'seconds':>10}")
    for kind, e, acc, secs in rows:
        print(f"{kind:<5} {e:>6} {acc:>9.2f}% {secs:>10.1f}")


if __name__ == "__main__":
    main()
