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


def llama(attn, dtype=None, layers=2):
    from transformers import LlamaConfig, LlamaForCausalLM
    import fmha.integrations.transformers  # noqa: F401 (registers "fmha")
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=512, intermediate_size=1024,
                         num_hidden_layers=layers, num_attention_heads=4,
                         num_key_value_heads=2, vocab_size=1000,
                         max_position_embeddings=2048)
    return LlamaForCausalLM._from_config(
        config, attn_implementation=attn,
        torch_dtype=dtype or torch.bfloat16).to("cuda").eval()


@NEEDS_HOPPER
@NEEDS_TRANSFORMERS
class TransformersTest(unittest.TestCase):
    def test_greedy_tokens_match_sdpa(self):
        models = {a: llama(a) for a in ("sdpa", "fmha")}
        for seed in range(3):
            gen = torch.Generator().manual_seed(seed)
            ids = torch.randint(0, 1000, (1, 37 + 50 * seed),
                                generator=gen).cuda()
            with torch.no_grad():
                out = {a: m.generate(ids, max_new_tokens=24,
                                     do_sample=False)
                       for a, m in models.items()}
            self.assertTrue(torch.equal(out["fmha"], out["sdpa"]),
                            f"seed {seed}: {out['fmha']} vs {out['sdpa']}")

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
