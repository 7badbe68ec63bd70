"""fmha as a Hugging Face transformers attention implementation.

    import fmha.integrations.transformers   # registers "fmha"
    model = AutoModelForCausalLM.from_config(config,
                                             attn_implementation="fmha")

Importing this module registers ``"fmha"`` with transformers'
``AttentionInterface`` (the attention function) and
``AttentionMaskInterface`` (the masks: the same as the ``"sdpa"``
implementation's, so a mask is only built where one is needed).
:func:`register` does it again under another name.

What the attention function does with each call:

* no mask (causal or full attention over every key, the usual prefill and
  decode of unpadded batches): ``fmha.attention`` with the model's
  ``scaling``, causal where the module is causal and more than one query
  row comes (aligned bottom-right, as a KV cache needs: query i of n sees
  the keys up to ``i + seq_k - n``), grouped-query attention without
  repeating K and V, a sliding window where the model has one;
* a mask (padded batches, packed sequences, custom masks): PyTorch's
  ``scaled_dot_product_attention`` with that mask. fmha has no masked
  kernel yet; this path is correct, not fast, and is counted in
  :data:`FALLBACKS` so a benchmark can say how often it ran.

Errors, before anything runs: dropout during training, dtypes other than
bfloat16 and float16, head dims other than 64, 128 and 256 (ValueError or
TypeError naming the model's value).
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from .. import ops

NAME = "fmha"
# Calls that ran fmha's kernel, and calls that had to take PyTorch's masked
# attention (a benchmark or test can say how often each ran).
CALLS = {"fmha": 0}
FALLBACKS = {"masked": 0}


def fmha_attention_forward(module: Any, query: Any, key: Any, value: Any,
                           attention_mask: Optional[Any],
                           dropout: float = 0.0,
                           scaling: Optional[float] = None,
                           is_causal: Optional[bool] = None,
                           sliding_window: Optional[int] = None,
                           **kwargs: Any) -> tuple:
    """transformers' attention-function signature: ``query`` is ``[batch,
    heads, seq_q, head_dim]``, ``key``/``value`` ``[batch, heads_kv,
    seq_k, head_dim]``; returns ``(output [batch, seq_q, heads,
    head_dim], None)``."""
    if dropout and module.training:
        raise ValueError(f"fmha attention: dropout ({dropout}) is not "
                         "supported; set the model's attention_dropout to 0")
    if query.dtype not in (torch.bfloat16, torch.float16):
        raise TypeError(f"fmha attention: the model runs in {query.dtype}; "
                        "fmha needs bfloat16 or float16 (load the model with "
                        "torch_dtype=torch.bfloat16)")
    if query.shape[-1] not in (64, 128, 256):
        raise ValueError(f"fmha attention: head_dim {query.shape[-1]} is not "
                         "supported (64, 128 or 256)")
    if is_causal is None:
        is_causal = getattr(module, "is_causal", True)
    if attention_mask is not None:
        FALLBACKS["masked"] += 1
        return _masked(module, query, key, value, attention_mask, scaling)
    causal = bool(is_causal) and query.shape[2] > 1
    window = None
    if sliding_window is not None:
        window = (int(sliding_window) - 1, 0)
        causal = True
    CALLS["fmha"] += 1
    out = ops.attention(query, key, value, causal=causal, window=window,
                        scale=scaling)
    return out.transpose(1, 2), None


def _masked(module: Any, query: Any, key: Any, value: Any, mask: Any,
            scaling: Optional[float]) -> tuple:
    group = query.shape[1] // key.shape[1]
    if group > 1:
        key = key.repeat_interleave(group, dim=1)
        value = value.repeat_interleave(group, dim=1)
    if mask.dtype != torch.bool and mask.dim() == 4:
        mask = mask[:, :, :, :key.shape[-2]]
    out = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=mask, scale=scaling)
    return out.transpose(1, 2).contiguous(), None


def register(name: str = NAME) -> None:
    """Registers fmha's attention (and sdpa's masks) under ``name``."""
    from transformers import AttentionInterface, AttentionMaskInterface
    from transformers.masking_utils import sdpa_mask
    AttentionInterface.register(name, fmha_attention_forward)
    AttentionMaskInterface.register(name, sdpa_mask)


register()
