"""The models the Python tests train and the partition benchmark compiles: each a small version
of what torch.compile users checkpoint (an MLP with LayerNorm, nanoGPT-style blocks with dropout,
a conv net with train-mode BatchNorm, an embedding with cross-entropy), with a seeded batch."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class LayerNormMLP(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.fc1, self.ln, self.fc2 = nn.Linear(16, width), nn.LayerNorm(width), nn.Linear(width, 8)

    def forward(self, x, target):
        y = self.fc2(F.gelu(self.ln(self.fc1(x))))
        return F.mse_loss(y, target)

    @staticmethod
    def batch(g):
        return torch.randn(4, 16, generator=g), torch.randn(4, 8, generator=g)


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.heads = heads
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.attn_drop, self.resid_drop = nn.Dropout(dropout), nn.Dropout(dropout)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads))
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = self.attn_drop(F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
        return self.resid_drop(self.proj(y))


class GPTBlock(nn.Module):
    def __init__(self, d=32, heads=4, dropout=0.1):
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(d), CausalSelfAttention(d, heads, dropout)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class NanoGPT(nn.Module):
    """Token and position embeddings, `layers` blocks, a tied LM head and cross-entropy."""

    def __init__(self, layers=2, d=32, heads=4, vocab=64, context=16, dropout=0.1):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(context, d)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.Sequential(*[GPTBlock(d, heads, dropout) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.vocab, self.context = vocab, context

    def forward(self, tokens, targets):
        t = tokens.shape[1]
        x = self.drop(self.tok(tokens) + self.pos(torch.arange(t)))
        logits = self.ln_f(self.blocks(x)) @ self.tok.weight.t()
        return F.cross_entropy(logits.view(-1, self.vocab), targets.view(-1))

    def batch(self, g, size=2):
        tokens = torch.randint(0, self.vocab, (size, self.context), generator=g)
        return tokens, torch.roll(tokens, -1, dims=1)


class ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 10)

    def forward(self, x, target):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return F.cross_entropy(self.fc(x.mean(dim=(2, 3))), target)

    @staticmethod
    def batch(g):
        return torch.randn(4, 3, 8, 8, generator=g), torch.randint(0, 10, (4,), generator=g)


class EmbeddingCE(nn.Module):
    def __init__(self, vocab=50, d=16, classes=7):
        super().__init__()
        self.emb, self.fc = nn.Embedding(vocab, d), nn.Linear(d, classes)

    def forward(self, tokens, target):
        return F.cross_entropy(self.fc(torch.tanh(self.emb(tokens)).mean(dim=1)), target)

    @staticmethod
    def batch(g):
        return torch.randint(0, 50, (4, 6), generator=g), torch.randint(0, 7, (4,), generator=g)


# name -> a function building (model, batch function) from a seed
TRAINING_MODELS = {
    "layernorm_mlp": lambda: LayerNormMLP(),
    "nanogpt": lambda: NanoGPT(layers=2),
    "conv_batchnorm": lambda: ConvBN(),
    "embedding_ce": lambda: EmbeddingCE(),
}
