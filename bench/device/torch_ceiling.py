"""The native ceiling for the device benchmark (bench/device/run.ts): the same matmul N^3, MLP
training step (forward, masked log-softmax policy-gradient loss, backward, clip, Adam) and GPT-2-style
training step (src/lm/graph.ts: learned positions, pre-LayerNorm blocks, causal attention, tanh-GELU
MLP, tied head, cross-entropy, backward, clip, Adam) in PyTorch, eager, fp32 (TF32 off), on CUDA when
present. Prints one JSON object. --quick: smallest sizes."""
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


class Block(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = torch.nn.LayerNorm(d, eps=1e-5)
        self.q = torch.nn.Linear(d, d)
        self.k = torch.nn.Linear(d, d)
        self.v = torch.nn.Linear(d, d)
        self.o = torch.nn.Linear(d, d)
        self.ln_2 = torch.nn.LayerNorm(d, eps=1e-5)
        self.fc = torch.nn.Linear(d, 4 * d)
        self.proj = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        a = self.ln_1(x)
        split = lambda z: z.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = torch.nn.functional.scaled_dot_product_attention(
            split(self.q(a)), split(self.k(a)), split(self.v(a)), is_causal=True
        )
        x = x + self.o(att.transpose(1, 2).reshape(b, t, d))
        m = self.ln_2(x)
        return x + self.proj(torch.nn.functional.gelu(self.fc(m), approximate="tanh"))


class Gpt(torch.nn.Module):
    def __init__(self, vocab, seq, d, layers, heads):
        super().__init__()
        self.wte = torch.nn.Embedding(vocab, d)
        self.wpe = torch.nn.Embedding(seq, d)
        self.blocks = torch.nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = torch.nn.LayerNorm(d, eps=1e-5)

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1], device=ids.device))
        for blk in self.blocks:
            x = blk(x)
        return self.ln_f(x) @ self.wte.weight.t()


out["gpt"] = []
# (vocab, d, layers, heads, batch, seq): the sizes of bench/device/rows.ts.
gpt_sizes = [(256, 64, 1, 4, 2, 16)] if quick else [(1024, 256, 4, 4, 16, 256), (1024, 384, 6, 6, 16, 512)]
for vocab, d, layers, heads, batch, seq in gpt_sizes:
    net = Gpt(vocab, seq, d, layers, heads).to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, betas=(0.9, 0.99), eps=1e-8)
    ids = torch.randint(0, vocab, (batch, seq), device=dev)
    targets = torch.randint(0, vocab, (batch * seq,), device=dev)

    def gpt_step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(ids).view(-1, vocab), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()

    params = sum(p.numel() for p in net.parameters())
    out["gpt"].append(
        {"params": params, "tokens": f"{batch}x{seq}", "ms": median_ms(gpt_step, 5 if quick else 20)}
    )
print(json.dumps(out, indent=2))
