"""The native ceiling for the device benchmark (bench/device/run.ts): the same matmul N^3 and MLP
training step (forward, masked log-softmax policy-gradient loss, backward, clip, Adam) in PyTorch,
eager, fp32 (TF32 off), on CUDA when present. Prints one JSON object. --quick: smallest sizes."""
import json
import sys
import time

import torch

quick = "--quick" in sys.argv
dev = "cuda" if torch.cuda.is_available() else "cpu"
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def sync():
    if dev == "cuda":
        torch.cuda.synchronize()


def median_ms(fn, reps):
    fn()
    sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append((time.perf_counter() - t0) * 1e3)
    return sorted(ts)[len(ts) // 2]


out = {"device": torch.cuda.get_device_name(0) if dev == "cuda" else "cpu", "torch": torch.__version__}
out["matmul"] = []
for n in [256] if quick else [2048, 4096]:
    a = torch.randn(n, n, device=dev)
    b = torch.randn(n, n, device=dev)
    ms = median_ms(lambda: a @ b, 5 if quick else 20)
    out["matmul"].append({"n": n, "ms": ms, "tflops": 2 * n**3 / (ms * 1e-3) / 1e12})

out["mlp"] = []
for batch, hidden in [(256, 64)] if quick else [(256, 64), (16384, 1024)]:
    obs, actions = 32, 16
    net = torch.nn.Sequential(
        torch.nn.Linear(obs, hidden), torch.nn.Tanh(),
        torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
        torch.nn.Linear(hidden, actions),
    ).to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-7)
    x = torch.randn(batch, obs, device=dev)
    mask = (torch.rand(batch, actions, device=dev) > 0.2).float()
    mask[:, 0] = 1
    act = torch.randint(0, actions, (batch,), device=dev)
    adv = torch.randn(batch, device=dev)

    def step():
        opt.zero_grad()
        logits = net(x) + (1 - mask) * -1e9
        logp = torch.log_softmax(logits, dim=-1).gather(1, act[:, None])[:, 0]
        loss = -(logp * adv).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()

    out["mlp"].append({"batch": batch, "hidden": hidden, "ms": median_ms(step, 5 if quick else 20)})
print(json.dumps(out, indent=2))
