"""The real-model corpus: transformers' own architectures, built tiny from configs in code (no
downloads), trained for a few SGD steps under torch.compile with PyTorch 2.13's min-cut and with
remat.partition_fn, and compared: the same saved values, the same forward and backward code, and
bit-identical losses and parameters.

Used by python/tests/test_transformers_models.py (a subset, in CI) and tools/model_sweep.py (every
architecture the library's model mappings name, writing docs/models.md).

A configuration is (architecture, kind, variant): kind is the task head (causal-lm, masked-lm,
seq2seq-lm, image-classification, audio-classification), variant a combination of gradient
checkpointing, the attention implementation and torch._functorch.config.activation_memory_budget.
"""

import dataclasses
import inspect
import time
import traceback
import warnings

import torch

STEPS = 3
BATCH, SEQUENCE = 2, 8
IMAGE, PATCH = 64, 8
AUDIO_SAMPLES = 4000

# The tiny sizes, by the names configs use for them (a config's attribute_map translates the
# standard ones; only the keywords its constructor takes are passed).
_SIZES = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_layers": 2,
    "n_layer": 2,
    "num_decoder_layers": 2,
    "encoder_layers": 2,
    "decoder_layers": 2,
    "num_attention_heads": 4,
    "encoder_attention_heads": 4,
    "decoder_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "d_model": 64,
    "d_kv": 16,
    "d_ff": 128,
    "encoder_ffn_dim": 128,
    "decoder_ffn_dim": 128,
    "vocab_size": 256,
    "max_position_embeddings": 64,
    "num_local_experts": 4,
    "num_experts": 4,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 32,
    "image_size": IMAGE,
    "patch_size": PATCH,
    "num_labels": 3,
}

_LAYER_COUNTS = ("num_hidden_layers", "num_layers", "n_layer", "num_decoder_layers", "encoder_layers", "decoder_layers")

# Configs whose fields must agree with the tiny depth in a form of their own.
_QUIRKS = {
    "gpt_neo": {"attention_types": [[["global", "local"], 1]], "window_size": 4},
}

KINDS = {
    "causal-lm": ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "AutoModelForCausalLM"),
    "masked-lm": ("MODEL_FOR_MASKED_LM_MAPPING_NAMES", "AutoModelForMaskedLM"),
    "seq2seq-lm": ("MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES", "AutoModelForSeq2SeqLM"),
    "image-classification": ("MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES", "AutoModelForImageClassification"),
    "audio-classification": ("MODEL_FOR_AUDIO_CLASSIFICATION_MAPPING_NAMES", "AutoModelForAudioClassification"),
}


@dataclasses.dataclass(frozen=True)
class Variant:
    checkpointed: bool = False
    attention: str = "eager"  # or "sdpa"
    budget: float | None = None  # torch._functorch.config.activation_memory_budget

    @property
    def name(self):
        parts = ["checkpointed" if self.checkpointed else "plain", self.attention]
        if self.budget is not None:
            parts.append(f"budget {self.budget:g}")
        return ", ".join(parts)


ALL_VARIANTS = tuple(Variant(c, a, b) for c in (False, True) for a in ("eager", "sdpa") for b in (None, 0.5))


@dataclasses.dataclass
class Outcome:
    """One configuration's result. status: "identical", "differs" (remat's), "remat-error"
    (remat's), "torch-error" (PyTorch's min-cut or torch.compile fails too), "unbuildable" (no
    tiny model from a config: neither's), "unsupported" (the model lacks the variant)."""

    arch: str
    kind: str
    variant: Variant
    status: str
    detail: str = ""
    torch_seconds: float = 0.0  # time in PyTorch's min-cut (every joint of the run)
    remat_seconds: float = 0.0  # time in remat.partition_fn
    joints: int = 0
    joint_nodes: int = 0
    # Joints whose modules PyTorch's steps built instead of remat's module builder, with why
    # (remat.last_report().builder); empty where the builder built every joint.
    builder_fallbacks: list = dataclasses.field(default_factory=list)

    @property
    def whose(self):
        return {
            "identical": "",
            "differs": "remat's",
            "remat-error": "remat's",
            "torch-error": "PyTorch's",
            "unbuildable": "transformers'",
            "unsupported": "",
        }[self.status]


def architectures(kind):
    """Model types of one kind, in the library's mapping order."""
    from transformers.models.auto import modeling_auto

    return list(getattr(modeling_auto, KINDS[kind][0]))


def _constructor_keywords(config_class):
    params = inspect.signature(config_class.__init__).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return None  # takes anything: only what its defaults name
    return set(params)


def tiny_config(model_type, variant):
    from transformers import AutoConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    config_class = CONFIG_MAPPING[model_type]
    defaults = config_class().to_dict()
    takes = _constructor_keywords(config_class)
    known = set(defaults) | set(getattr(config_class, "attribute_map", {}) or {})
    kwargs = {}
    for name, size in _SIZES.items():
        if (takes is None and name in known) or (takes is not None and name in takes):
            kwargs[name] = size
    for name, v in defaults.items():
        if isinstance(v, float) and ("dropout" in name or name.endswith("_pdrop") or name == "layerdrop"):
            if takes is None or name in takes:
                kwargs[name] = 0.0
    for name in ("mask_time_prob", "mask_feature_prob"):  # SpecAugment: random masks in training
        if name in defaults:
            kwargs[name] = 0.0
    # Per-layer lists sized for the default depth follow the new one (layer_types...).
    layers = next((defaults[k] for k in _LAYER_COUNTS if isinstance(defaults.get(k), int)), None)
    per_layer = [
        name
        for name, v in defaults.items()
        if isinstance(v, list) and layers and len(v) == layers and (takes is None or name in takes)
    ]
    for name in per_layer:
        kwargs[name] = defaults[name][: _SIZES["num_hidden_layers"]]
    vocab = kwargs.get("vocab_size")
    for name in ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id", "sep_token_id"):
        if (
            vocab
            and isinstance(defaults.get(name), int)
            and defaults[name] >= vocab
            and (takes is None or name in takes)
        ):
            kwargs[name] = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}.get(name, 2)
    kwargs.update(_QUIRKS.get(model_type, {}))
    kwargs["attn_implementation"] = variant.attention
    try:
        config = AutoConfig.for_model(model_type, **kwargs)
    except Exception:  # noqa: BLE001  (a config that validates its depth its own way: keep its depth)
        for k in (*_LAYER_COUNTS, *per_layer):
            kwargs.pop(k, None)
        config = AutoConfig.for_model(model_type, **kwargs)
    config.use_cache = False
    for name in ("pad_token_id", "decoder_start_token_id"):  # seq2seq models shift labels right
        if getattr(config, name, None) is None:
            setattr(config, name, 0)
    return config


def build(model_type, kind, variant, seed=0):
    import transformers

    config = tiny_config(model_type, variant)
    torch.manual_seed(seed)
    model = getattr(transformers, KINDS[kind][1]).from_config(config, attn_implementation=variant.attention)
    model.train()
    if variant.checkpointed:
        if not model.supports_gradient_checkpointing:
            raise _Unsupported("the model does not support gradient checkpointing")
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    return model, config


class _Unsupported(Exception):
    pass


def inputs(kind, config, seed=1):
    g = torch.Generator().manual_seed(seed)
    vocab = int(getattr(config, "vocab_size", 256) or 256)
    if kind in ("causal-lm", "masked-lm"):
        ids = torch.randint(3, vocab, (BATCH, SEQUENCE), generator=g)
        return {"input_ids": ids, "labels": ids.clone()}
    if kind == "seq2seq-lm":
        ids = torch.randint(3, vocab, (BATCH, SEQUENCE), generator=g)
        return {"input_ids": ids, "labels": torch.randint(3, vocab, (BATCH, SEQUENCE), generator=g)}
    labels = torch.randint(0, config.num_labels, (BATCH,), generator=g)
    if kind == "image-classification":
        channels = int(getattr(config, "num_channels", 3) or 3)
        size = getattr(config, "image_size", IMAGE)
        size = size if isinstance(size, int) else IMAGE
        return {"pixel_values": torch.randn(BATCH, channels, size, size, generator=g), "labels": labels}
    if kind == "audio-classification":
        return {"input_values": torch.randn(BATCH, AUDIO_SAMPLES, generator=g), "labels": labels}
    raise ValueError(kind)


@dataclasses.dataclass
class Run:
    losses: list
    parameters: dict
    saved: list  # per joint: the saved values' names
    code: list  # per joint: (forward code, backward code)
    seconds: float = 0.0
    joint_nodes: int = 0
    rng_states: list = dataclasses.field(default_factory=list)  # per joint: the saved RNG states


def rng_state_names(fw, num_fwd_outputs):
    """The saved values that are RNG states: run_and_save_rng_state's first output, which PyTorch
    saves for each random op the backward recomputes (CPU attention and dropout in a checkpoint)."""
    import operator

    output = next(n for n in fw.graph.nodes if n.op == "output")
    return [
        a.name
        for a in output.args[0][num_fwd_outputs:]
        if getattr(a, "target", None) is operator.getitem
        and a.args[1] == 0
        and getattr(getattr(a.args[0], "target", None), "__name__", "") == "run_and_save_rng_state"
    ]


def _saved_names(fw, num_fwd_outputs):
    output = next(n for n in fw.graph.nodes if n.op == "output")
    return [getattr(a, "name", repr(a)) for a in output.args[0][num_fwd_outputs:]]


def train(model, batch, partition, variant, steps=STEPS):
    """`steps` SGD steps of the compiled model with `partition` as AOTAutograd's partition_fn."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch import config as functorch_config

    run = Run([], {}, [], [])

    def recording(joint, joint_inputs, **kwargs):
        run.joint_nodes += len(joint.graph.nodes)
        start = time.perf_counter()
        fw, bw = partition(joint, joint_inputs, **kwargs)
        run.seconds += time.perf_counter() - start
        run.saved.append(_saved_names(fw, kwargs["num_fwd_outputs"]))
        run.rng_states.append(rng_state_names(fw, kwargs["num_fwd_outputs"]))
        run.code.append((fw.code, bw.code))
        return fw, bw

    def boxed(gm, _example_inputs):
        return make_boxed_func(gm)

    torch._dynamo.reset()
    compiled = torch.compile(model, backend=aot_autograd(fw_compiler=boxed, partition_fn=recording))
    patch = {} if variant.budget is None else {"activation_memory_budget": variant.budget}
    with functorch_config.patch(patch):
        _sgd_steps(compiled, model, batch, steps, run)
    return run


def _sgd_steps(compiled, model, batch, steps, run):
    """`steps` SGD steps of `compiled`, their losses and the parameters after them into `run`."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            optimizer.zero_grad()
            loss = compiled(**batch).loss
            loss.backward()
            optimizer.step()
            run.losses.append(loss.detach().clone())
    run.parameters = {k: v.detach().clone() for k, v in model.named_parameters()}
    torch._dynamo.reset()


def _first_line(e):
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0][:300] if text else type(e).__name__


def _bitwise_equal(a, b):
    """Equal element for element, a NaN where the other has a NaN too (a tiny model may diverge)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if torch.equal(a, b):
        return True
    if not a.is_floating_point():
        return False
    nan = a.isnan()
    return torch.equal(nan, b.isnan()) and torch.equal(a.masked_fill(nan, 0), b.masked_fill(nan, 0))


def difference(theirs, ours):
    """The first difference between PyTorch's run and remat's, or None."""
    if len(theirs.saved) != len(ours.saved):
        return f"{len(theirs.saved)} joints under PyTorch, {len(ours.saved)} under remat"
    for i, (t, o) in enumerate(zip(theirs.saved, ours.saved)):
        if t != o:
            only_t = [x for x in t if x not in o][:4]
            only_o = [x for x in o if x not in t][:4]
            return f"joint {i}: saved {len(o)} values where PyTorch saves {len(t)} (only PyTorch: {only_t}, only remat: {only_o})"
    for i, ((tf, tb), (of, ob)) in enumerate(zip(theirs.code, ours.code)):
        if tf != of:
            return f"joint {i}: the forward's code differs"
        if tb != ob:
            return f"joint {i}: the backward's code differs"
    for step, (t, o) in enumerate(zip(theirs.losses, ours.losses)):
        if not _bitwise_equal(t, o):
            return f"step {step}: loss {o.item()!r} where PyTorch's is {t.item()!r}"
    for name, t in theirs.parameters.items():
        if not _bitwise_equal(t, ours.parameters[name]):
            return f"parameter {name} differs after {STEPS} steps"
    return None


def _eager_error(arch, kind, variant):
    """The first line of what a forward and backward without torch.compile raise, or None."""
    try:
        model, config = build(arch, kind, variant)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model(**inputs(kind, config)).loss.backward()
    except Exception as e:  # noqa: BLE001
        return _first_line(e)
    return None


def torch_min_cut(joint, joint_inputs, **kwargs):
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    return min_cut_rematerialization_partition(joint, joint_inputs, **kwargs)


_builders = []  # remat.last_report().builder of each remat_partition call


def remat_partition(joint, joint_inputs, **kwargs):
    import remat

    modules = remat.partition_fn(joint, joint_inputs, **kwargs)
    _builders.append(remat.last_report().builder)
    return modules


def compare(arch, kind, variant):
    """Runs one configuration under both partitioners and says how they compare."""
    outcome = Outcome(arch, kind, variant, "identical")
    try:
        model, config = build(arch, kind, variant)
        batch = inputs(kind, config)
        if variant.attention == "sdpa" and getattr(model.config, "_attn_implementation", "sdpa") != "sdpa":
            raise _Unsupported("the model has no sdpa attention")
    except _Unsupported as e:
        outcome.status, outcome.detail = "unsupported", str(e)
        return outcome
    except ValueError as e:
        if "does not support an attention implementation" not in str(e):
            outcome.status, outcome.detail = "unbuildable", _first_line(e)
            return outcome
        outcome.status, outcome.detail = "unsupported", f"no {variant.attention} attention"
        return outcome
    except Exception as e:  # noqa: BLE001  (the library cannot build it tiny)
        outcome.status, outcome.detail = "unbuildable", _first_line(e)
        return outcome
    try:
        theirs = train(model, batch, torch_min_cut, variant)
    except Exception as e:  # noqa: BLE001
        outcome.status, outcome.detail = "torch-error", _first_line(e)
        eager_error = _eager_error(arch, kind, variant)
        if eager_error is not None:  # the tiny model does not run at all: no partitioner's fault
            outcome.status, outcome.detail = "unbuildable", "fails without torch.compile too: " + eager_error
        return outcome
    try:
        model, _ = build(arch, kind, variant)  # afresh: a run may leave state in the modules
        _builders.clear()
        ours = train(model, batch, remat_partition, variant)
        outcome.builder_fallbacks = [b for b in _builders if b != "remat"]
    except Exception as e:  # noqa: BLE001
        outcome.status, outcome.detail = "remat-error", _first_line(e)
        outcome.torch_seconds = theirs.seconds
        return outcome
    outcome.torch_seconds, outcome.remat_seconds = theirs.seconds, ours.seconds
    outcome.joints, outcome.joint_nodes = len(theirs.saved), theirs.joint_nodes
    diff = difference(theirs, ours)
    if diff is not None:
        outcome.status, outcome.detail = "differs", diff
    return outcome


def inductor_train(model, batch, partition, variant, steps=STEPS):
    """train() under torch.compile's default backend (Inductor) with `partition` as its
    custom_partitioner_fn (called as Inductor calls its partitioner), caches off so that every
    compile partitions."""
    from torch._functorch import config as functorch_config
    from torch._inductor import config as inductor_config
    from torch._inductor.custom_graph_pass import CustomPartitionerFn

    run = Run([], {}, [], [])

    class Recording(CustomPartitionerFn):
        def __call__(self, gm, joint_inputs, **kwargs):
            start = time.perf_counter()
            fw, bw = partition(gm, joint_inputs, **kwargs)
            run.seconds += time.perf_counter() - start
            run.saved.append(_saved_names(fw, kwargs["num_fwd_outputs"]))
            return fw, bw

        def uuid(self):
            return None

    torch._dynamo.reset()
    compiled = torch.compile(model, options={"custom_partitioner_fn": Recording()})
    patch = {} if variant.budget is None else {"activation_memory_budget": variant.budget}
    with functorch_config.patch(enable_autograd_cache=False, **patch), inductor_config.patch(fx_graph_cache=False):
        _sgd_steps(compiled, model, batch, steps, run)
    return run


def inductor_difference(arch, kind, variant, rtol=1e-4, atol=1e-5):
    """Inductor with PyTorch's min-cut against Inductor with remat.inductor_partitioner(): the
    first difference in saved values, or in losses and parameters beyond the tolerance (Inductor's
    CPU kernels are not bitwise reproducible from run to run for every model), or None."""
    import remat

    def pytorch(gm, joint_inputs, **kwargs):
        from torch._functorch.partitioners import min_cut_rematerialization_partition

        return min_cut_rematerialization_partition(gm, joint_inputs, **kwargs)

    remats = remat.inductor_partitioner()
    runs = []
    for partition in (pytorch, remats):
        model, config = build(arch, kind, variant)
        runs.append(inductor_train(model, inputs(kind, config), partition, variant))
    theirs, ours = runs
    if theirs.saved != ours.saved:
        return f"saved {ours.saved} where PyTorch saves {theirs.saved}"
    for step, (t, o) in enumerate(zip(theirs.losses, ours.losses)):
        if not torch.allclose(t, o, rtol=rtol, atol=atol):
            return f"step {step}: loss {o.item()!r} where PyTorch's is {t.item()!r}"
    for name, t in theirs.parameters.items():
        if not torch.allclose(t, ours.parameters[name], rtol=rtol, atol=atol):
            return f"parameter {name} differs after {STEPS} steps beyond rtol {rtol}"
    return None


def compare_quietly(arch, kind, variant):
    """compare(), with any escape (an import error of one model's module...) as its outcome."""
    try:
        return compare(arch, kind, variant)
    except Exception as e:  # noqa: BLE001
        return Outcome(arch, kind, variant, "unbuildable", _first_line(e) + " | " + traceback.format_exc(limit=1))
