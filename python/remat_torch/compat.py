"""Does remat plan my kind of model? One training step of each model through
`remat_torch.backend` (PyTorch 2.x), against the same step in eager PyTorch.

    python -m remat_torch.compat [--compiler eager|inductor] [--models a,b]
                                 [--list]

A model is a built-in name (`--list`) or MODULE:FACTORY, your own: a
function of an importable module (the current directory is on the path)
returning `(module, loss_of)`, where `loss_of(m)` computes a scalar loss with
`m` (the module, or its compiled form) on fixed inputs, e.g.

    def build():
        model = MyNet()
        x, y = torch.randn(8, 3, 64, 64), torch.randint(0, 10, (8,))
        return model, lambda m: F.cross_entropy(m(x), y)

Models: torchvision's (installed with remat's `.venv`) and, when the packages
are importable, tiny configurations of Hugging Face transformers and timm
models. For each model one line: how many graphs remat planned, how many
fell back to PyTorch's partitioner (each reason is printed below), and the
gradients against the same step through PyTorch's own pipeline and
partitioner (`aot_eager` for `compiler="eager"`, `inductor` for Inductor)
and against eager PyTorch: `equal` (bit for bit) or the normwise relative
difference of all gradients together. remat's plan is judged against PyTorch's partition of
the same joint graph: with `compiler="eager"` a plan only moves ATen ops
between forward and backward, so the gradients must be equal; Inductor
fuses what each partition gives it differently, so there they must be within
1e-3. The eager difference is shown beside it, because AOTAutograd's
decompositions alone change some models' gradients (PyTorch's partition
then differs from eager as much as remat's). Exits 1 when a model fell back,
failed or missed.

This is how the f64, complex and int32 fallbacks of docs/Python.md
("Element types") were found.
"""

import argparse
import copy
import importlib
import sys
import time
import warnings

import torch
import torch.nn.functional as F

from remat_torch.backend import backend

_INDUCTOR_TOLERANCE = 1e-3


def _vision(make):
    """A classifier on 2 random 64x64 images with a cross-entropy loss."""
    def build():
        module = make()
        images, labels = torch.randn(2, 3, 64, 64), torch.tensor([1, 3])
        return module, lambda m: F.cross_entropy(m(images), labels)
    return build


def _torchvision(name, **kwargs):
    def make():
        import torchvision
        return getattr(torchvision.models, name)(num_classes=10, **kwargs)
    return _vision(make)


def _timm(name, **kwargs):
    def make():
        import timm
        return timm.create_model(name, pretrained=False, num_classes=10,
                                 **kwargs)
    return _vision(make)


# A tiny text model: configurations override what their architecture names
# differently.
_HF_TEXT_SIZES = dict(num_hidden_layers=2, hidden_size=64,
                      num_attention_heads=4, intermediate_size=128,
                      vocab_size=256, max_position_embeddings=64)


def _hf_causal(config_name, model_name, **config):
    def build():
        import transformers
        defaults = dict(_HF_TEXT_SIZES, **config)
        module = getattr(transformers, model_name)(
            getattr(transformers, config_name)(**defaults))
        ids = torch.randint(0, 256, (2, 32))
        return module, lambda m: m(input_ids=ids, labels=ids).loss
    return build


def _hf_gpt2():
    import transformers
    module = transformers.GPT2LMHeadModel(transformers.GPT2Config(
        n_layer=2, n_embd=64, n_head=4, vocab_size=256, n_positions=64))
    ids = torch.randint(0, 256, (2, 32))
    return module, lambda m: m(input_ids=ids, labels=ids).loss


def _hf_t5():
    import transformers
    module = transformers.T5ForConditionalGeneration(transformers.T5Config(
        decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
        num_layers=2, num_decoder_layers=2, d_model=64, d_kv=16, num_heads=4,
        d_ff=128, vocab_size=256))
    ids, labels = torch.randint(0, 256, (2, 16)), torch.randint(0, 256, (2, 8))
    return module, lambda m: m(input_ids=ids, labels=labels).loss


def _hf_encoder(config_name, model_name, **config):
    """A sequence classifier (BERT-like encoder) on 2 x 16 tokens."""
    def build():
        import transformers
        defaults = dict(_HF_TEXT_SIZES, **config)
        module = getattr(transformers, model_name)(
            getattr(transformers, config_name)(**defaults))
        ids, labels = torch.randint(3, 256, (2, 16)), torch.tensor([0, 1])
        return module, lambda m: m(input_ids=ids, labels=labels).loss
    return build


def _hf_vision(config_name, model_name, **config):
    """An image classifier on 2 random 32x32 images."""
    def build():
        import transformers
        module = getattr(transformers, model_name)(
            getattr(transformers, config_name)(num_labels=10, **config))
        images, labels = torch.randn(2, 3, 32, 32), torch.tensor([1, 3])
        return module, lambda m: m(pixel_values=images, labels=labels).loss
    return build


def _hf_bart():
    import transformers
    module = transformers.BartForConditionalGeneration(transformers.BartConfig(
        vocab_size=256, d_model=64, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4,
        encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64))
    ids, labels = torch.randint(3, 256, (2, 16)), torch.randint(3, 256, (2, 8))
    return module, lambda m: m(input_ids=ids, labels=labels).loss


def _hf_whisper():
    import transformers
    module = transformers.WhisperForConditionalGeneration(
        transformers.WhisperConfig(
            vocab_size=256, d_model=64, encoder_layers=2, decoder_layers=2,
            encoder_attention_heads=4, decoder_attention_heads=4,
            encoder_ffn_dim=128, decoder_ffn_dim=128, num_mel_bins=16,
            max_source_positions=32, max_target_positions=32,
            decoder_start_token_id=1, pad_token_id=0))
    features, labels = torch.randn(2, 16, 64), torch.randint(3, 256, (2, 8))
    return module, lambda m: m(input_features=features, labels=labels).loss


def _hf_clip():
    import transformers
    module = transformers.CLIPModel(transformers.CLIPConfig(
        text_config=dict(vocab_size=256, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4,
                         max_position_embeddings=32),
        vision_config=dict(hidden_size=64, intermediate_size=128,
                           num_hidden_layers=2, num_attention_heads=4,
                           image_size=32, patch_size=8),
        projection_dim=32))
    ids, images = torch.randint(3, 256, (2, 16)), torch.randn(2, 3, 32, 32)
    return module, lambda m: m(input_ids=ids, pixel_values=images,
                               return_loss=True).loss


def _hf_wav2vec2():
    import transformers
    # No time masking: its spans come from NumPy's unseeded generator.
    module = transformers.Wav2Vec2ForSequenceClassification(
        transformers.Wav2Vec2Config(
            hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=128, conv_dim=(32, 32), conv_stride=(5, 2),
            conv_kernel=(10, 3), num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=4, num_labels=3,
            mask_time_prob=0.0))
    audio, labels = torch.randn(2, 800), torch.tensor([0, 2])
    return module, lambda m: m(input_values=audio, labels=labels).loss


def _hf_mamba():
    import transformers
    module = transformers.MambaForCausalLM(transformers.MambaConfig(
        vocab_size=256, hidden_size=64, state_size=8, num_hidden_layers=2,
        expand=2, conv_kernel=4))
    ids = torch.randint(0, 256, (2, 16))
    return module, lambda m: m(input_ids=ids, labels=ids).loss


# name -> (package it needs, factory returning (module, loss of a module)).
MODELS = {
    "resnet18": ("torchvision", _torchvision("resnet18")),
    "mobilenet_v3_small": ("torchvision", _torchvision("mobilenet_v3_small")),
    "efficientnet_b0": ("torchvision", _torchvision("efficientnet_b0")),
    "shufflenet_v2_x0_5": ("torchvision", _torchvision("shufflenet_v2_x0_5")),
    "regnet_y_400mf": ("torchvision", _torchvision("regnet_y_400mf")),
    "squeezenet1_1": ("torchvision", _torchvision("squeezenet1_1")),
    "hf_gpt2": ("transformers", _hf_gpt2),
    "hf_llama": ("transformers", _hf_causal(
        "LlamaConfig", "LlamaForCausalLM", num_key_value_heads=2)),
    "hf_mistral": ("transformers", _hf_causal(
        "MistralConfig", "MistralForCausalLM", num_key_value_heads=2)),
    "hf_qwen2": ("transformers", _hf_causal(
        "Qwen2Config", "Qwen2ForCausalLM", num_key_value_heads=2)),
    "hf_mixtral": ("transformers", _hf_causal(
        "MixtralConfig", "MixtralForCausalLM", num_key_value_heads=2,
        num_local_experts=4, num_experts_per_tok=2)),
    "hf_gemma2": ("transformers", _hf_causal(
        "Gemma2Config", "Gemma2ForCausalLM", num_key_value_heads=2,
        head_dim=16)),
    "hf_gpt_neox": ("transformers", _hf_causal(
        "GPTNeoXConfig", "GPTNeoXForCausalLM")),
    "hf_falcon": ("transformers", _hf_causal(
        "FalconConfig", "FalconForCausalLM")),
    "hf_bloom": ("transformers", _hf_causal(
        "BloomConfig", "BloomForCausalLM", n_layer=2, n_head=4)),
    "hf_mamba": ("transformers", _hf_mamba),
    "hf_t5": ("transformers", _hf_t5),
    "hf_bart": ("transformers", _hf_bart),
    "hf_whisper": ("transformers", _hf_whisper),
    "hf_distilbert": ("transformers", _hf_encoder(
        "DistilBertConfig", "DistilBertForSequenceClassification",
        n_layers=2, dim=64, n_heads=4, hidden_dim=128)),
    "hf_deberta_v2": ("transformers", _hf_encoder(
        "DebertaV2Config", "DebertaV2ForSequenceClassification")),
    "hf_vit": ("transformers", _hf_vision(
        "ViTConfig", "ViTForImageClassification", num_hidden_layers=2,
        hidden_size=64, num_attention_heads=4, intermediate_size=128,
        image_size=32, patch_size=8)),
    "hf_swin": ("transformers", _hf_vision(
        "SwinConfig", "SwinForImageClassification", image_size=32,
        patch_size=2, embed_dim=16, depths=[1, 1], num_heads=[2, 2],
        window_size=4)),
    "hf_clip": ("transformers", _hf_clip),
    "hf_wav2vec2": ("transformers", _hf_wav2vec2),
    "timm_convnext_atto": ("timm", _timm("convnext_atto")),
    "timm_regnety_002": ("timm", _timm("regnety_002")),
    "timm_vit_tiny": ("timm", _timm("vit_tiny_patch16_224", img_size=64)),
    "timm_maxvit_nano": ("timm", _timm("maxvit_nano_rw_256", img_size=64)),
    "timm_levit_128s": ("timm", _timm("levit_128s", img_size=64)),
    "timm_densenet121": ("timm", _timm("densenet121")),
}


def _available(package):
    try:
        __import__(package)
        return True
    except ImportError:
        return False


def _gradient_difference(compiled, reference):
    """0.0 when every gradient is equal bit for bit, else the normwise
    relative difference of all gradients together (inf when one side has a
    gradient the other lacks). One norm over every parameter, not the
    largest per parameter: a parameter whose gradient is near zero (a
    bias under a normalisation) would make rounding look like a 100%
    error."""
    squared_difference, squared_norm, equal = 0.0, 0.0, True
    for p, q in zip(compiled.parameters(), reference.parameters()):
        if p.grad is None and q.grad is None:
            continue
        if p.grad is None or q.grad is None:
            return float("inf")
        if not torch.equal(p.grad, q.grad):
            equal = False
        got, want = p.grad.double(), q.grad.double()
        squared_difference += float((got - want).square().sum())
        squared_norm += float(want.square().sum())
    if equal:
        return 0.0
    return (squared_difference / max(squared_norm, 1e-60)) ** 0.5


# PyTorch's own pipeline, with its default partitioner, per compiler.
PEERS = {"eager": "aot_eager", "inductor": "inductor"}


def _train_step(module, loss_of, backend=None):
    """One backward of the loss of `module` (compiled with `backend`, if
    any) from the same random state."""
    run = torch.compile(module, backend=backend) if backend else module
    torch.manual_seed(1)
    try:
        loss_of(run).backward()
    finally:
        torch._dynamo.reset()


def _describe(difference):
    return "equal" if difference == 0.0 else f"rel {difference:.1e}"


def _user_factory(name):
    """The factory MODULE:FACTORY names; ValueError saying why not."""
    module_name, _, factory_name = name.partition(":")
    try:
        return getattr(importlib.import_module(module_name), factory_name)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot load {name}: {error}") from None


def check_model(name, compiler, factory=None):
    """(ok, line, fallback reasons) for one training step of `name` (a
    built-in model, or the one `factory` makes)."""
    torch.manual_seed(0)
    made = (factory or MODELS[name][1])()
    if not (isinstance(made, tuple) and len(made) == 2 and
            isinstance(made[0], torch.nn.Module) and callable(made[1])):
        raise TypeError(f"{name}() returned {type(made).__name__}; expected "
                        "(torch.nn.Module, loss_of) with loss_of(module) a "
                        "scalar loss")
    module, loss_of = made
    module.train()
    peer, reference = copy.deepcopy(module), copy.deepcopy(module)
    plans = []
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _train_step(module, loss_of,
                    backend(compiler=compiler, on_plan=plans.append))
    seconds = time.perf_counter() - start
    _train_step(reference, loss_of)
    reasons = [p.fallback_reason for p in plans if p.fallback_reason]
    reasons += [str(w.message) for w in caught
                if "remat_torch.partition: falling back" in str(w.message)
                and not any(r in str(w.message) for r in reasons)]
    against_eager = _gradient_difference(module, reference)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _train_step(peer, loss_of, PEERS[compiler])
        against_peer = _gradient_difference(module, peer)
        peer_text = f"{_describe(against_peer)} to PyTorch's partition"
    except Exception as error:  # judged against eager PyTorch instead
        against_peer = against_eager
        peer_text = (f"PyTorch's partition failed ({type(error).__name__}), "
                     f"so against eager")
    tolerance = 0.0 if compiler == "eager" else _INDUCTOR_TOLERANCE
    ok = plans and not reasons and against_peer <= tolerance
    line = (f"{name:22s} {'ok  ' if ok else 'FAIL'} planned "
            f"{len(plans) - len(reasons)} graph(s), {len(reasons)} "
            f"fallback(s), gradients {peer_text}, "
            f"{_describe(against_eager)} to eager ({seconds:.1f} s)")
    return bool(ok), line, reasons


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m remat_torch.compat",
        description="One training step per model through "
                    "remat_torch.backend, against PyTorch's own partition "
                    "of the same graph and against eager PyTorch.")
    parser.add_argument("--compiler", choices=("eager", "inductor"),
                        default="eager")
    parser.add_argument("--models", help="comma-separated built-in names "
                        "or MODULE:FACTORY (default: every built-in model "
                        "whose package is installed)")
    parser.add_argument("--list", action="store_true",
                        help="list the models and whether each can run")
    args = parser.parse_args(argv)
    if int(torch.__version__.split(".")[0]) < 2:
        parser.error(f"needs PyTorch 2.x for torch.compile (this is "
                     f"{torch.__version__})")
    if args.list:
        for name, (package, _) in MODELS.items():
            state = "available" if _available(package) else "not installed"
            print(f"{name:22s} {package} ({state})")
        return 0
    factories = {}
    if args.models:
        names = args.models.split(",")
        unknown = [n for n in names if n not in MODELS and ":" not in n]
        if unknown:
            parser.error(f"unknown model(s) {', '.join(unknown)}; "
                         f"known: {', '.join(MODELS)}; or MODULE:FACTORY")
        missing = [n for n in names
                   if n in MODELS and not _available(MODELS[n][0])]
        if missing:
            parser.error(", ".join(f"{n} needs {MODELS[n][0]}"
                                   for n in missing) + ", not installed")
        sys.path.insert(0, "")  # MODULE:FACTORY from the current directory
        for name in names:
            if name not in MODELS:
                try:
                    factories[name] = _user_factory(name)
                except ValueError as error:
                    parser.error(str(error))
    else:
        names = [n for n, (package, _) in MODELS.items() if _available(package)]
    passed = 0
    for name in names:
        try:
            ok, line, reasons = check_model(name, args.compiler,
                                            factories.get(name))
        except Exception as error:  # a model that cannot even run is a FAIL
            ok, line, reasons = False, f"{name:22s} FAIL {type(error).__name__}: {error}", []
        passed += ok
        print(line, flush=True)
        for reason in reasons:
            print(f"    fallback: {reason}")
    print(f"compat ({args.compiler}): {passed} of {len(names)} models planned "
          "with the expected gradients")
    return 0 if passed == len(names) else 1


if __name__ == "__main__":
    sys.exit(main())
