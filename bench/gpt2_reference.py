"""The zoo's GPT-2 block written in PyTorch, shared by the comparison scripts."""

import math

import torch


def block(x, p, mask, heads):
    """nanoGPT's Block: pre-norm attention (fused qkv, causal mask, softmax) and a gelu MLP."""
    B, T, C = x.shape
    D = C // heads
    h = torch.nn.functional.layer_norm(x, (C,), p[0], p[1])
    q, k, v = torch.nn.functional.linear(h, p[2], p[3]).split(C, 2)
    q = q.view(B, T, heads, D).transpose(1, 2)
    k = k.view(B, T, heads, D).transpose(1, 2)
    v = v.view(B, T, heads, D).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D))
    att = att.masked_fill(mask, float("-inf")).softmax(-1)
    y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
    x = x + torch.nn.functional.linear(y, p[4], p[5])
    h = torch.nn.functional.layer_norm(x, (C,), p[6], p[7])
    h = torch.nn.functional.gelu(torch.nn.functional.linear(h, p[8], p[9]))
    return x + torch.nn.functional.linear(h, p[10], p[11])


def params(c, requires_grad=False):
    """The block's 12 parameters, in the zoo's order."""
    shapes = [(c,), (c,), (3 * c, c), (3 * c,), (c, c), (c,), (c,), (c,), (4 * c, c), (4 * c,), (c, 4 * c), (c,)]
    return [torch.randn(s, requires_grad=requires_grad) for s in shapes]
