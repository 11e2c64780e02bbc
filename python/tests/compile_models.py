"""Models for the torch.compile tests (PyTorch 2.x): each exercises one thing a partitioner must
get right under today's activation checkpointing, with a seeded batch.

non-reentrant torch.utils.checkpoint, selective checkpointing policies (MUST_SAVE,
PREFER_RECOMPUTE, MUST_RECOMPUTE), dropout inside a checkpoint (RNG), train-mode batch norm
(mutated buffers), views and in-place ops, several outputs, scaled-dot-product attention."""

import collections
import functools

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

aten = torch.ops.aten


class Block(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.ln, self.fc1, self.fc2 = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.ln(x))))


class InPlaceBlock(nn.Module):
    """In-place ops inside a checkpoint region, as transformers writes them: ConvBERT's
    `x += self.bias` then a transpose of x, Nystromformer's `context += conv(v)`, a masked_fill_
    and an index assignment (Aria's MoE)."""

    def __init__(self, d=16):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, d), nn.Linear(d, d)
        self.bias = nn.Parameter(torch.linspace(-0.5, 0.5, d))

    def forward(self, x):
        y = self.fc1(x)
        y += self.bias
        h = torch.tanh(y.transpose(-1, -2)).transpose(-1, -2)
        h = self.fc2(h)
        h += torch.sigmoid(x)
        h.masked_fill_(h > 1.5, 1.5)
        out = torch.zeros_like(h)
        out[..., ::2] = h[..., ::2] * 2
        return out + h.cos()


def parity_policy():
    """A selective-checkpointing context_fn that tags each call by its index among the region's
    calls of its op (an in-place op counted with its functional form, as the joint shows it):
    MUST_SAVE when even, PREFER_SAVE when odd. The joint then shows which call made each node, and
    the nodes PyTorch tags PREFER_RECOMPUTE are the ones no policy decides. (Pass the function
    itself: under Dynamo, a closure made anew in each forward tagged every call as the first.)"""
    counts = collections.Counter()

    def policy(ctx, op, *_args, **_kwargs):
        namespace, _, rest = str(op).partition(".")
        name, _, overload = rest.partition(".")
        if name.endswith("_") and not name.endswith("__"):
            name = name[:-1]
        key = (ctx.is_recompute, f"{namespace}.{name}.{overload}")
        index = counts[key]
        counts[key] += 1
        return CheckpointPolicy.MUST_SAVE if index % 2 == 0 else CheckpointPolicy.PREFER_SAVE

    return create_selective_checkpoint_contexts(policy)


def sac_policy(saved_ops, otherwise):
    """A selective-checkpointing context_fn: MUST_SAVE for `saved_ops`, `otherwise` for the rest."""

    def policy(_ctx, op, *_args, **_kwargs):
        return CheckpointPolicy.MUST_SAVE if op in saved_ops else otherwise

    return functools.partial(create_selective_checkpoint_contexts, policy)


class CheckpointedMLP(nn.Module):
    """Residual blocks, each under a non-reentrant checkpoint (with a SAC policy if given)."""

    def __init__(self, layers=3, context_fn=None):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(layers))
        self.context_fn = context_fn

    def forward(self, x):
        for block in self.blocks:
            if self.context_fn is None:
                x = checkpoint(block, x, use_reentrant=False)
            else:
                x = checkpoint(block, x, use_reentrant=False, context_fn=self.context_fn)
        return x.pow(2).mean()

    @staticmethod
    def batch(g, rows=4):
        return (torch.randn(rows, 16, generator=g),)


class PlainMLP(nn.Module):
    """The same blocks without checkpointing: what a memory budget has to choose from."""

    def __init__(self, layers=3):
        super().__init__()
        self.blocks = nn.Sequential(*(Block() for _ in range(layers)))

    def forward(self, x):
        return self.blocks(x).pow(2).mean()

    batch = staticmethod(CheckpointedMLP.batch)


class CheckpointedDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 32), nn.Linear(32, 4)

    def inner(self, x):
        return self.fc2(F.dropout(torch.relu(self.fc1(x)), 0.3, training=True))

    def forward(self, x):
        return checkpoint(self.inner, x, use_reentrant=False).sum()

    @staticmethod
    def batch(g, rows=4):
        return (torch.randn(rows, 16, generator=g),)


class CheckpointedBatchNorm(nn.Module):
    """Train-mode batch norm (its running statistics are mutated buffers) before a checkpointed
    convolution. Batch norm itself stays outside the checkpoint: recomputing it would read the
    running statistics after their update, which PyTorch's version counters refuse."""

    def __init__(self):
        super().__init__()
        self.conv1, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2, self.fc = nn.Conv2d(8, 8, 3, padding=1), nn.Linear(8, 3)

    def inner(self, x):
        return torch.relu(self.conv2(x))

    def forward(self, x):
        x = torch.relu(self.bn(self.conv1(x)))
        return self.fc(checkpoint(self.inner, x, use_reentrant=False).mean((2, 3))).sum()

    @staticmethod
    def batch(g, rows=2):
        return (torch.randn(rows, 3, 6, 6, generator=g),)


class ViewsAndInPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def inner(self, x):
        y = self.fc(x).view(x.shape[0], 4, 4).transpose(1, 2)
        z = y.clone()
        z.mul_(2).relu_()
        return z.reshape(x.shape[0], 16).sin() + y.reshape(x.shape[0], 16)

    def forward(self, x):
        return checkpoint(self.inner, x, use_reentrant=False).sum()

    @staticmethod
    def batch(g, rows=4):
        return (torch.randn(rows, 16, generator=g),)


class SeveralOutputs(nn.Module):
    """Returns a loss, an activation that is trained through, and a detached one."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 16), nn.Linear(16, 8)

    def inner(self, x):
        return torch.tanh(self.fc1(x))

    def forward(self, x):
        h = checkpoint(self.inner, x, use_reentrant=False)
        return h.sum(), self.fc2(h).sigmoid(), h.detach()

    @staticmethod
    def batch(g, rows=4):
        return (torch.randn(rows, 16, generator=g),)


class Attention(nn.Module):
    """Causal self-attention through F.scaled_dot_product_attention (on the CPU, PyTorch 2.x's
    _scaled_dot_product_flash_attention_for_cpu and its backward): a block to checkpoint."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads, self.qkv, self.proj = heads, nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        rows, length, d = x.shape
        q, k, v = self.qkv(x).view(rows, length, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.proj(y.transpose(1, 2).reshape(rows, length, d))


class CheckpointedAttention(Attention):
    """The attention block under a checkpoint."""

    inner = Attention.forward

    def forward(self, x):
        return checkpoint(self.inner, x, use_reentrant=False).pow(2).mean()

    @staticmethod
    def batch(g, rows=4):
        return (torch.randn(rows, 8, 16, generator=g),)


class CheckpointedInPlace(nn.Module):
    """Two InPlaceBlocks, each under a checkpoint whose policy saves every call (so that the nodes
    PyTorch tags PREFER_RECOMPUTE are the ones no policy decides)."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(InPlaceBlock() for _ in range(2))

    def forward(self, x):
        save_all = sac_policy(set(), CheckpointPolicy.MUST_SAVE)
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False, context_fn=save_all)
        return x.pow(2).mean()

    @staticmethod
    def batch(g, rows=2):
        return (torch.randn(rows, 8, 16, generator=g),)


class UnderParityPolicy(nn.Module):
    """A block (the subclass's `block`) under a checkpoint with parity_policy, then a scalar."""

    def forward(self, x):
        return checkpoint(self.block, x, use_reentrant=False, context_fn=parity_policy).pow(2).mean()


class HiddenInPlace(UnderParityPolicy):
    """Swin-v2's continuous position bias: a Linear over a 4-D tensor, nn.ReLU(inplace=True) (an
    in-place change that no line of the model shows) and a second Linear."""

    def __init__(self, d=16, heads=3):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(2, d), nn.ReLU(inplace=True), nn.Linear(d, heads, bias=False))
        self.heads = heads

    def block(self, coords):
        return torch.sigmoid(self.mlp(coords).view(-1, self.heads)) * 16

    @staticmethod
    def batch(g, rows=1):
        return (torch.randn(rows, 5, 5, 2, generator=g),)


class GroupMasked(UnderParityPolicy):
    """GLM-4-MoE's group mask (of one group, as in its tiny config): a zeros_like that scatter_
    changes in place, viewed by three view calls (unsqueeze, expand, reshape) whose outputs
    functionalization makes again, then an unsqueeze of another tensor."""

    def __init__(self, d=16, groups=1):
        super().__init__()
        self.fc, self.groups = nn.Linear(d, d), groups

    def block(self, x):
        rows, d = x.shape
        scores = self.fc(x).sigmoid()
        group_scores = scores.view(rows, self.groups, d // self.groups).amax(-1)
        mask = torch.zeros_like(group_scores)
        mask.scatter_(1, group_scores.topk(1, dim=-1)[1], 1)
        kept = mask.unsqueeze(-1).expand(-1, self.groups, d // self.groups).reshape(-1, d)
        return scores.masked_fill(~kept.bool(), 0.0) * scores.sum(-1).unsqueeze(-1)

    @staticmethod
    def batch(g, rows=8):
        return (torch.randn(rows, 16, generator=g),)


class AssignedKeys(UnderParityPolicy):
    """HY-v4's attention keys: an item assignment changes part of the keys in place, then matmul
    reads their transpose (views functionalization makes again), and a transpose after it."""

    def __init__(self, d=16):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def block(self, x):
        keys = self.fc(x)
        keys[..., :4] = keys[..., :4] * 2
        return torch.matmul(x, keys.transpose(1, 2)).transpose(1, 2).sigmoid()

    @staticmethod
    def batch(g, rows=2):
        return (torch.randn(rows, 8, 16, generator=g),)


class ChunkedDelta(nn.Module):
    """Bailing-hybrid's and Kimi-linear's chunked delta rule, two layers each under a checkpoint
    with parity_policy: rows of a tensor assigned in a loop, each read first (`attn[..., i, :i]`:
    the same views of the next i), a reshape nobody reads, a loop whose last state update nobody
    reads (a `bmm` and an `exp` after each layer's last), and an output assigned chunk by chunk,
    then read through a reshape, a slice, a transpose and contiguous (views functionalization
    makes again for every later call)."""

    def __init__(self, d=4, chunk=3):
        super().__init__()
        self.fc, self.chunk = nn.Linear(d, d), chunk

    def layer(self, x):
        rows, n, d = x.shape
        h = self.fc(x)
        keys = h.reshape(rows, -1, self.chunk, d)
        h[..., 0].reshape(rows, -1, self.chunk)  # (unused)
        attn = -(keys @ keys.transpose(-1, -2)) * 0.1
        for i in range(1, self.chunk):
            row = attn[..., i, :i].clone()
            sub = attn[..., :i, :i].clone()
            attn[..., i, :i] = row + (row.unsqueeze(-1) * sub).sum(-2)
        value = attn @ keys
        state = torch.zeros(rows, d, d)
        out = torch.zeros_like(value)
        for i in range(n // self.chunk):
            v_i, k_i = value[:, i], keys[:, i]
            out[:, i] = v_i @ state + v_i
            state = state * k_i[:, -1].exp().unsqueeze(-1) + k_i.transpose(-1, -2) @ v_i
        out = out.reshape(rows, -1, d)[:, :n].transpose(1, 2).contiguous()
        return out.transpose(1, 2)

    def forward(self, x):
        for _ in range(2):
            x = checkpoint(self.layer, x, use_reentrant=False, context_fn=parity_policy)
        return x.pow(2).mean()

    @staticmethod
    def batch(g, rows=2):
        return (torch.randn(rows, 6, 4, generator=g),)


class SlidingChunks(nn.Module):
    """transformers' own Longformer self-attention (local windows only), two layers each under a
    checkpoint with parity_policy: the query scaled in place (`query_vectors /= ...`, a view of the
    linear's output) before its views and chunks (`as_strided`), the scores assigned diagonal by
    diagonal into new zeros and masked in place, and chunk counts computed as tensors (calls with
    no node: `_local_scalar_dense`). Needs transformers; the joint it makes is in
    tests/data/torch-2.13/sliding_chunks_*.json."""

    def __init__(self, d=8, heads=2, window=4):
        super().__init__()
        from transformers import LongformerConfig
        from transformers.models.longformer.modeling_longformer import LongformerSelfAttention

        config = LongformerConfig(hidden_size=d, num_attention_heads=heads, attention_window=[window, window])
        config.attention_probs_dropout_prob = 0.0
        self.layers = nn.ModuleList(LongformerSelfAttention(config, layer_id=i) for i in range(2))
        for layer in self.layers:  # (global attention's projections: unused with local windows only)
            layer.query_global = layer.key_global = layer.value_global = None

    def forward(self, x):
        rows, n, _ = x.shape
        mask = torch.zeros(rows, n)
        masked = torch.zeros(rows, n, dtype=torch.bool)
        for layer in self.layers:

            def attend(h, layer=layer):
                return layer(
                    h, attention_mask=mask, is_index_masked=masked, is_index_global_attn=masked, is_global_attn=False
                )[0]

            x = checkpoint(attend, x, use_reentrant=False, context_fn=parity_policy)
        return x.pow(2).mean()

    @staticmethod
    def batch(g, rows=2):
        return (torch.randn(rows, 8, 8, generator=g),)


class TensorConstants(nn.Module):
    """Constants the way real models hold them (Llama's masks, T5's position buckets): a
    registered constant buffer, and tensors made from Python numbers in forward, which
    torch.compile lifts into get_attr constants (`_tensor_constant0` read by lift_fresh_copy), one
    inside a checkpoint region and one outside."""

    def __init__(self, d=16):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, d), nn.Linear(d, d)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, d), persistent=False)

    def block(self, x):
        return torch.sin(self.fc2(x) * torch.tensor([0.25, 0.5, 2.0, 4.0]).repeat(4))

    def forward(self, x):
        x = torch.tanh(self.fc1(x)) + torch.tensor(1.5)
        y = checkpoint(self.block, x, use_reentrant=False)
        return (y * self.scale).pow(2).mean()

    @staticmethod
    def batch(g, rows=4):
        return (torch.randn(rows, 16, generator=g),)


def copy_of_joint(joint):
    """A joint graph to hand a second partitioner (both edit theirs): the nodes copied, their
    meta dicts shallow-copied, the module's attributes (tensor constants) shared. A deepcopy fails
    on a joint holding a lifted constant (its fake value's storage is on another device)."""
    graph = torch.fx.Graph()
    graph._codegen = joint.graph._codegen
    output = graph.graph_copy(joint.graph, {})
    graph.output(output)
    return torch.fx.GraphModule(joint, graph)


def loss_of(output):
    """A scalar to call backward on, whatever the model returns."""
    if isinstance(output, tuple):
        return output[0] + output[1].mean()
    return output


MODELS = {
    "no_checkpoint": lambda: PlainMLP(),
    "checkpoint": lambda: CheckpointedMLP(),
    "sac_must_save": lambda: CheckpointedMLP(
        context_fn=sac_policy({aten.mm.default, aten.addmm.default}, CheckpointPolicy.PREFER_RECOMPUTE)
    ),
    "sac_must_recompute": lambda: CheckpointedMLP(
        context_fn=sac_policy({aten.native_layer_norm.default}, CheckpointPolicy.MUST_RECOMPUTE)
    ),
    "dropout": lambda: CheckpointedDropout(),
    "batch_norm": lambda: CheckpointedBatchNorm(),
    "views_in_place": lambda: ViewsAndInPlace(),
    "several_outputs": lambda: SeveralOutputs(),
    "attention": lambda: CheckpointedAttention(),
    "tensor_constants": lambda: TensorConstants(),
    "in_place": lambda: CheckpointedInPlace(),
    "hidden_in_place": lambda: HiddenInPlace(),
    "group_masked": lambda: GroupMasked(),
    "assigned_keys": lambda: AssignedKeys(),
    "chunked_delta": lambda: ChunkedDelta(),
    "sliding_chunks": lambda: SlidingChunks(),
}
