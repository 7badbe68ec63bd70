"""fmha as a transformers attention implementation, on a Hopper GPU.

Skipped without PyTorch, transformers or a CUDA device of compute
capability 9.0. The model is a small random-init Llama built from a
config (nothing is downloaded).
"""

import unittest

try:
    import torch
    import transformers  # noqa: F401
except ImportError:
    torch = None

from .test_gpu_ops import NEEDS_HOPPER

NEEDS_TRANSFORMERS = unittest.skipIf(torch is None,
                                     "needs PyTorch and transformers")


def llama(attn, dtype=None, layers=2, hidden=512, heads=4, kv_heads=2,
          vocab=1000):
    from transformers import LlamaConfig, LlamaForCausalLM
    import fmha.integrations.transformers  # noqa: F401 (registers "fmha")
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=hidden, intermediate_size=2 * hidden,
                         num_hidden_layers=layers, num_attention_heads=heads,
                         num_key_value_heads=kv_heads, vocab_size=vocab,
                         max_position_embeddings=2048)
    return LlamaForCausalLM._from_config(
        config, attn_implementation=attn,
        torch_dtype=dtype or torch.bfloat16).to("cuda").eval()


@NEEDS_HOPPER
@NEEDS_TRANSFORMERS
class TransformersTest(unittest.TestCase):
    def test_greedy_tokens_match_sdpa(self):
        # The model (hidden 2048, 4 layers, GQA 16:4), greedy, 32
        # new tokens after three prompts. The tokens must be the same; the
        # only allowed difference is a continuation after a near-tie (each
        # implementation's choice within 1% of the top logit in the
        # other's logits), where bf16 rounding decides; from there on the
        # two sequences are different prompts. A random-init model's
        # logits over 32000 tokens are nearly flat, so such ties occur
        # within 32 tokens.
        models = {a: llama(a, layers=4, hidden=2048, heads=16, kv_heads=4,
                           vocab=32000) for a in ("sdpa", "fmha")}
        self.assertEqual(models["sdpa"].config._attn_implementation, "sdpa")
        import fmha.integrations.transformers as integration
        before = integration.FALLBACKS["masked"]
        calls = integration.CALLS["fmha"]
        for seed in range(3):
            ids = torch.randint(0, 32000, (1, 64 + 37 * seed),
                                generator=torch.Generator().manual_seed(
                                    seed)).cuda()
            with torch.no_grad():
                out = {a: m.generate(ids, max_new_tokens=32,
                                     do_sample=False, output_logits=True,
                                     return_dict_in_generate=True)
                       for a, m in models.items()}
            new = {a: o.sequences[0, ids.shape[1]:] for a, o in out.items()}
            differ = (new["fmha"] != new["sdpa"]).nonzero().flatten()
            if len(differ) == 0:
                continue
            first = int(differ[0])
            # A near-tie for both: each one's choice is within 1% of the
            # top logit in the other's logits at that step.
            for mine, other in (("sdpa", "fmha"), ("fmha", "sdpa")):
                logits = out[mine].logits[first][0].float()
                top = float(logits.max())
                gap = (top - float(logits[new[other][first]])) / abs(top)
                self.assertLess(gap, 1e-2,
                                f"prompt {seed}: new token {first} differs "
                                f"({int(new['fmha'][first])} with fmha, "
                                f"{int(new['sdpa'][first])} with SDPA) and "
                                f"{mine}'s logits have a clear winner "
                                f"(gap {gap:.3g})")
        # fmha's kernels ran (no call took PyTorch's masked attention).
        self.assertEqual(integration.FALLBACKS["masked"], before)
        self.assertGreater(integration.CALLS["fmha"], calls)

    def test_teacher_forced_choices_agree(self):
        # A random-init model has near-ties that bf16 rounding may flip, so
        # on a sequence SDPA generated, every position where the two
        # implementations choose differently must be a near-tie in SDPA's
        # logits (top-2 gap under 1% of the top logit's magnitude), and
        # there must be few.
        models = {a: llama(a) for a in ("sdpa", "fmha")}
        for seed in range(3):
            gen = torch.Generator().manual_seed(seed)
            ids = torch.randint(0, 1000, (1, 37 + 50 * seed),
                                generator=gen).cuda()
            with torch.no_grad():
                seq = models["sdpa"].generate(ids, max_new_tokens=48,
                                              do_sample=False)
                logits = {a: m(seq).logits[0].float()
                          for a, m in models.items()}
            choice = {a: x.argmax(-1) for a, x in logits.items()}
            differ = (choice["fmha"] != choice["sdpa"]).nonzero().flatten()
            top2 = logits["sdpa"].topk(2, dim=-1).values
            gap = (top2[:, 0] - top2[:, 1]) / top2[:, 0].abs()
            self.assertLessEqual(len(differ), max(1, seq.shape[1] // 50),
                                 f"seed {seed}: positions {differ.tolist()}")
            for pos in differ.tolist():
                self.assertLess(float(gap[pos]), 1e-2,
                                f"seed {seed}: position {pos} differs with "
                                f"a clear winner")

    def test_logits_match_sdpa(self):
        models = {a: llama(a) for a in ("sdpa", "fmha")}
        ids = torch.randint(0, 1000, (3, 300), device="cuda")
        with torch.no_grad():
            logits = {a: m(ids).logits.float() for a, m in models.items()}
        err = ((logits["fmha"] - logits["sdpa"]).norm()
               / logits["sdpa"].norm()).item()
        self.assertLess(err, 2e-2)

    def test_padded_batch_is_correct(self):
        import fmha.integrations.transformers as integration
        models = {a: llama(a) for a in ("sdpa", "fmha")}
        ids = torch.randint(0, 1000, (2, 40), device="cuda")
        mask = torch.ones_like(ids)
        mask[1, :15] = 0  # left padding
        before = integration.FALLBACKS["masked"]
        with torch.no_grad():
            logits = {a: m(ids, attention_mask=mask).logits.float()
                      for a, m in models.items()}
        keep = mask.bool()
        err = ((logits["fmha"][keep] - logits["sdpa"][keep]).norm()
               / logits["sdpa"][keep].norm()).item()
        self.assertLess(err, 2e-2)
        self.assertGreater(integration.FALLBACKS["masked"], before)

    def test_float32_model_is_refused(self):
        model = llama("fmha", dtype=torch.float32, layers=1)
        with self.assertRaisesRegex(TypeError, "bfloat16 or float16"):
            with torch.no_grad():
                model(torch.randint(0, 1000, (1, 8), device="cuda"))


if __name__ == "__main__":
    unittest.main()
