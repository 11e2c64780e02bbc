"""The models people train: transformers' own architectures (tiny, random weights, no downloads)
under torch.compile with aot_autograd, PyTorch 2.13's min-cut against remat.partition_fn: the same
saved values, the same forward and backward code, bit-identical losses and parameters over 3 SGD
steps. A subset of the corpus, across the kinds and variants; tools/model_sweep.py runs every
architecture and writes docs/models.md."""

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (tools/setup.sh installs 2.13)")
if not hasattr(torch, "compile"):
    pytest.skip("torch.compile needs PyTorch 2.x", allow_module_level=True)
pytest.importorskip("transformers", reason="transformers is not installed (tools/setup.sh installs it)")
pytest.importorskip("remat._core", reason="remat's C++ extension is not built (cmake --build build)")

from transformers_corpus import Variant, compare, inductor_difference  # noqa: E402

PLAIN = Variant(checkpointed=False, attention="eager")
PLAIN_SDPA = Variant(checkpointed=False, attention="sdpa")
CHECKPOINTED = Variant(checkpointed=True, attention="sdpa")
PLAIN_BUDGET = Variant(checkpointed=False, attention="sdpa", budget=0.5)
CHECKPOINTED_EAGER = Variant(checkpointed=True, attention="eager")
CHECKPOINTED_BUDGET = Variant(checkpointed=True, attention="eager", budget=0.5)

# (architecture, kind, variants): every kind, checkpointed and not, with and without a budget.
# Llama, Qwen2, Mistral, GPT-2, Mixtral and T5 hold lifted tensor constants without checkpointing;
# GPT-Neo holds one outside its checkpoint regions (and has no sdpa attention); T5's encoder output
# is a forward output whose views PyTorch's CSE keeps apart; BERT and ViT with sdpa under a budget
# recompute attention as PyTorch does; ConvNeXt is a convolutional network (no checkpointing). The
# slowest configurations (ConvNeXt and wav2vec2 without either) are left to the sweep: CI's time.
# Found by the full sweep (tools/model_sweep.py): Falcon's backward reads a lifted constant's copy
# (PyTorch never bans recomputing lift_fresh_copy); FSMT's encoder output is reached through a
# transpose, whose views PyTorch's CSE keeps apart.
CORPUS = [
    ("llama", "causal-lm", (PLAIN, CHECKPOINTED, PLAIN_BUDGET)),
    ("qwen2", "causal-lm", (PLAIN_SDPA, CHECKPOINTED_BUDGET)),
    ("mistral", "causal-lm", (PLAIN, CHECKPOINTED)),
    ("gpt2", "causal-lm", (PLAIN, CHECKPOINTED)),
    ("mixtral", "causal-lm", (PLAIN, CHECKPOINTED)),
    ("gpt_neo", "causal-lm", (PLAIN, CHECKPOINTED_EAGER)),
    ("phi3", "causal-lm", (PLAIN_SDPA, CHECKPOINTED)),
    ("falcon", "causal-lm", (PLAIN,)),
    ("bert", "masked-lm", (PLAIN, CHECKPOINTED, PLAIN_BUDGET)),
    ("roberta", "masked-lm", (PLAIN_SDPA, CHECKPOINTED_BUDGET)),
    ("t5", "seq2seq-lm", (PLAIN, CHECKPOINTED)),
    ("bart", "seq2seq-lm", (PLAIN_SDPA, CHECKPOINTED)),
    ("fsmt", "seq2seq-lm", (PLAIN,)),
    ("vit", "image-classification", (PLAIN, CHECKPOINTED, PLAIN_BUDGET)),
    ("convnext", "image-classification", (Variant(budget=0.5),)),
    ("wav2vec2", "audio-classification", (CHECKPOINTED,)),
]


@pytest.mark.parametrize(
    "arch,kind,variant",
    [(arch, kind, v) for arch, kind, variants in CORPUS for v in variants],
    ids=lambda x: x.name.replace(", ", "-").replace(" ", "") if isinstance(x, Variant) else x,
)
def test_trains_bit_for_bit_like_pytorch_min_cut(arch, kind, variant):
    outcome = compare(arch, kind, variant)
    assert outcome.status == "identical", f"{outcome.status}: {outcome.detail}"
    assert outcome.joints >= 1


# Where PyTorch's own graph hides which op call made a node (tools/policy_tags_sweep.py runs the
# corpus): Mamba's scan drops a state (calls whose every node died, before the first live node
# of their op in each region), ConvBERT and Nystromformer change tensors in place in their regions,
# Swin-v2's nn.ReLU(inplace=True) where no line of the model shows it, GLM-4-MoE views its group
# mask after scatter_, Falcon indexes with lifted constants (lift_fresh), LongT5 adds in place to
# einsum's output (a chain of views made again down to the changed one), Bailing-hybrid's loops
# update their state once more than they read it (dead calls after the last live node of their op)
# and assign rows and chunks in place, PhiMoE's `empty_like(g).exponential_().log()` changes a tensor
# in place mid-line, Longformer scales its query in place before a chain of views and masks slices
# of its scores' view (stale views of a changed tensor, made again for every later call).
@pytest.mark.parametrize(
    "arch,kind",
    [
        ("mamba", "causal-lm"),
        ("convbert", "masked-lm"),
        ("nystromformer", "masked-lm"),
        ("swinv2", "image-classification"),
        ("glm4_moe", "causal-lm"),
        ("falcon", "causal-lm"),
        ("longt5", "seq2seq-lm"),
        ("bailing_hybrid", "causal-lm"),
        ("phimoe", "causal-lm"),
        ("longformer", "masked-lm"),
    ],
)
def test_remat_knows_which_op_call_tagged_each_node(arch, kind):
    from policy_tags import mispredicted_in_model

    joints, nodes, wrong = mispredicted_in_model(arch, kind, salt=0)
    assert joints >= 1 and nodes > 0
    assert wrong == []


@pytest.mark.parametrize("arch,kind,variant", [("llama", "causal-lm", PLAIN), ("bert", "masked-lm", CHECKPOINTED)])
def test_inductor_saves_what_its_default_partitioner_saves(arch, kind, variant):
    assert inductor_difference(arch, kind, variant) is None
