#!/usr/bin/env python3
"""Trains a small transformers Llama with fmha's attention and with SDPA
from the same seed, and says whether the loss curves agree within bf16
noise (issue 19, point 5).

    FMHA_CACHE_DIR=DIR python3 bench/train_llama.py [--steps 100]
        [--heads 4] [--seq 512] [--json FILE]

The model is built from a config (random init, nothing downloaded): 4
layers, hidden 512, 4 query heads on 2 KV heads (head dim 128, GQA;
``--heads 8``: 8 on 4, head dim 64, whose backward fuses dQ), vocab
1000, in bf16 (parameters and AdamW states: a pure-bf16 run, as rotary
embeddings under autocast would hand fmha float32 queries). The data are
random tokens: 4 fixed batches of 8 sequences of 512 tokens (``--seq``),
cycled, so
that the loss falls (the model memorizes them) and the curves have a
shape to compare. Every run starts from torch.manual_seed(0): the same
weights, the same data.

Runs: ``fmha`` (attn_implementation="fmha": forward and backward through
fmha's kernels), ``sdpa`` (PyTorch's default SDPA backend) twice, and
``sdpa-math`` (SDPA's math backend). The noise level is the largest
difference between the SDPA runs (two backends, and one backend run twice:
the same math in bf16 with other roundings or orders); the curves agree
when fmha's largest difference from ``sdpa`` is at most twice that noise
plus 1e-3. Prints the curves every 10 steps and the verdict; exits 1 when
they do not agree or when fmha's kernels did not run (every call fell back
to PyTorch's masked attention).
"""

import argparse
import json
import os
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha.integrations.transformers as integration  # noqa: E402

BATCHES, BATCH, SEQ, VOCAB = 4, 8, 512, 1000


HEADS = 4


def model(attn):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=512, intermediate_size=1024,
                         num_hidden_layers=4, num_attention_heads=HEADS,
                         num_key_value_heads=HEADS // 2, vocab_size=VOCAB,
                         max_position_embeddings=2048, attention_dropout=0.0)
    return LlamaForCausalLM._from_config(
        config, attn_implementation=attn,
        torch_dtype=torch.bfloat16).to("cuda").train()


def data():
    g = torch.Generator().manual_seed(1)
    return [torch.randint(0, VOCAB, (BATCH, SEQ), generator=g).cuda()
            for _ in range(BATCHES)]


def train(attn, steps, backend=None):
    """The loss of each step of a run with attn_implementation ``attn``
    (``backend``: SDPA's, forced)."""
    m = model(attn)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=0.0)
    batches = data()
    losses = []
    for step in range(steps):
        ids = batches[step % len(batches)]
        if backend is not None:
            with sdpa_kernel([backend]):
                loss = m(input_ids=ids, labels=ids).loss
                loss.backward()
        else:
            loss = m(input_ids=ids, labels=ids).loss
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
    del m, opt
    torch.cuda.empty_cache()
    return losses


def max_diff(a, b):
    return max(abs(x - y) for x, y in zip(a, b))


def main():
    global HEADS, SEQ
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--heads", type=int, default=HEADS,
                   help="query heads (head dim 512 / heads; KV heads half)")
    p.add_argument("--seq", type=int, default=SEQ,
                   help="tokens per sequence")
    p.add_argument("--json", help="write the curves and figures here")
    args = p.parse_args()
    HEADS, SEQ = args.heads, args.seq
    calls = integration.CALLS["fmha"]
    fallbacks = integration.FALLBACKS["masked"]
    runs = {"fmha": train("fmha", args.steps)}
    fmha_calls = integration.CALLS["fmha"] - calls
    masked = integration.FALLBACKS["masked"] - fallbacks
    runs["sdpa"] = train("sdpa", args.steps)
    runs["sdpa-again"] = train("sdpa", args.steps)
    runs["sdpa-math"] = train("sdpa", args.steps, SDPBackend.MATH)

    print("step " + " ".join(f"{name:>11}" for name in runs))
    for step in list(range(0, args.steps, 10)) + [args.steps - 1]:
        print(f"{step:4d} " + " ".join(f"{losses[step]:11.5f}"
                                       for losses in runs.values()))
    noise = max(max_diff(runs["sdpa"], runs["sdpa-again"]),
                max_diff(runs["sdpa"], runs["sdpa-math"]),
                max_diff(runs["sdpa-again"], runs["sdpa-math"]))
    diff = max_diff(runs["fmha"], runs["sdpa"])
    bound = 2 * noise + 1e-3
    agree = diff <= bound and fmha_calls > 0
    print(f"fmha attention calls: {fmha_calls} (masked fallbacks: "
          f"{masked})")
    print(f"max |fmha - sdpa| over {args.steps} steps: {diff:.5f}")
    print(f"bf16 noise (max difference between the SDPA runs: default "
          f"backend twice, default vs math): {noise:.5f}")
    print(f"first / last loss: fmha {runs['fmha'][0]:.4f} / "
          f"{runs['fmha'][-1]:.4f}, sdpa {runs['sdpa'][0]:.4f} / "
          f"{runs['sdpa'][-1]:.4f}")
    print(f"{'AGREE' if agree else 'DISAGREE'}: max |fmha - sdpa| {diff:.5f} "
          f"{'<=' if diff <= bound else '>'} 2 x noise + 1e-3 = {bound:.5f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "torch": torch.__version__, "steps": args.steps,
                       "heads": HEADS, "seq": SEQ,
                       "losses": runs, "max_diff": diff, "noise": noise,
                       "bound": bound, "agree": agree,
                       "fmha_calls": fmha_calls, "masked_fallbacks": masked},
                      f, indent=1)
    sys.exit(0 if agree else 1)


if __name__ == "__main__":
    main()
